#include "sim/measured/csv_table.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <set>
#include <sstream>

#include "configfile/input_file.h"
#include "configfile/number_text.h"
#include "sim/measured/import_error.h"

namespace bnsim {

void import_fail(const std::string& file, int line, const std::string& field, const std::string& what) {
    std::string m = file;
    if (line > 0) m += ":" + std::to_string(line);
    m += ": ";
    if (!field.empty()) m += "field '" + excerpt(field) + "': ";
    throw ImportError(m + what);
}

double parse_number(const std::string& text, const std::string& file, int line, const std::string& field) {
    std::string t = text;
    while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.pop_back();
    size_t b = 0;
    while (b < t.size() && std::isspace(static_cast<unsigned char>(t[b]))) ++b;
    t = t.substr(b);
    if (t.empty()) import_fail(file, line, field, "expected a number, got an empty value");
    // Decimal numbers only (strtod alone also reads "0x10", "nan" and "inf").
    const auto v = parse_real(t);
    if (!v) import_fail(file, line, field, "expected a number, got '" + excerpt(t) + "'");
    return *v;
}

std::optional<size_t> CsvTable::column(const std::string& name) const {
    for (size_t i = 0; i < header.size(); ++i)
        if (header[i] == name) return i;
    return std::nullopt;
}

CsvTable parse_csv(const std::string& text, const std::string& file) {
    CsvTable t;
    t.file = file;
    std::vector<std::string> fields;
    std::string cur;
    bool quoted = false, any = false;
    int line = 1, row_line = 1, quote_line = 0;
    auto end_row = [&]() {
        fields.push_back(cur);
        cur.clear();
        const bool blank = fields.size() == 1 && fields[0].empty() && !any;
        if (!blank) {
            if (t.header.empty()) {
                std::set<std::string> seen;
                for (size_t i = 0; i < fields.size(); ++i) {
                    if (fields[i].empty())
                        import_fail(file, row_line, "", "column " + std::to_string(i + 1) + " of the header has no name");
                    if (!seen.insert(fields[i]).second) import_fail(file, row_line, fields[i], "duplicate column");
                }
                t.header = fields;
            } else {
                if (fields.size() != t.header.size())
                    import_fail(file, row_line, "",
                                "expected " + std::to_string(t.header.size()) + " fields as in the header, got " +
                                    std::to_string(fields.size()));
                t.rows.push_back(fields);
                t.lines.push_back(row_line);
            }
        }
        fields.clear();
        any = false;
    };
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"') {
                if (i + 1 < text.size() && text[i + 1] == '"') {
                    cur += '"';
                    ++i;
                } else {
                    quoted = false;
                }
            } else {
                if (c == '\n') ++line;
                cur += c;
            }
            continue;
        }
        if (c == '"') {
            quoted = true;
            any = true;
            quote_line = line;
        } else if (c == ',') {
            fields.push_back(cur);
            cur.clear();
            any = true;
        } else if (c == '\r') {
            // CRLF line ends
        } else if (c == '\n') {
            end_row();
            ++line;
            row_line = line;
        } else {
            cur += c;
            any = true;
        }
    }
    if (quoted) import_fail(file, quote_line, "", "unterminated quoted field");
    if (!cur.empty() || !fields.empty() || any) end_row();
    if (t.header.empty()) import_fail(file, 0, "", "empty file, expected a CSV header line");
    return t;
}

std::string read_import_file(const std::string& path, const std::string& what, uint64_t max_bytes) {
    try {
        return read_input_file(path, what, max_bytes);
    } catch (const ConfigError& e) {
        throw ImportError(e.what());
    }
}

CsvTable read_csv(const std::string& path) { return parse_csv(read_import_file(path, "a CSV file", kMaxMeasuredBytes), path); }

}  // namespace bnsim
