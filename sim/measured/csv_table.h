#pragma once
// A CSV file as a header and rows of strings, each row keeping the line it started on so
// importers can point at it. RFC 4180 quoting ("a,b", "" for a quote, quoted newlines).
#include <optional>
#include <string>
#include <vector>

namespace bnsim {

struct CsvTable {
    std::string file;
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;  // each as wide as the header
    std::vector<int> lines;                      // 1-based line each row starts on

    std::optional<size_t> column(const std::string& name) const;
};

// Throws ImportError on an unreadable file, an empty file, a duplicate or empty column name, an
// unterminated quote or a row whose field count differs from the header's. Blank lines are skipped.
CsvTable read_csv(const std::string& path);
CsvTable parse_csv(const std::string& text, const std::string& file);

}  // namespace bnsim
