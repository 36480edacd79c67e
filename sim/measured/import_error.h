#pragma once
// A measured-data file bnsim cannot read: the message names the file, the line (or record) and
// the field, and what was expected. It is bad input, so it derives from ConfigError (exit 2).
#include <cstdint>
#include <string>

#include "configfile/config_error.h"

namespace bnsim {

struct ImportError : ConfigError {
    using ConfigError::ConfigError;
};

// "FILE:LINE: field 'F': WHAT" (line 0 or field "" are left out).
[[noreturn]] void import_fail(const std::string& file, int line, const std::string& field, const std::string& what);

// A measured-data file's text (read_input_file: regular files only, at most max_bytes, BOM
// dropped); its errors as ImportError.
std::string read_import_file(const std::string& path, const std::string& what, uint64_t max_bytes);

// A number in a field, or an ImportError naming file, line and field.
double parse_number(const std::string& text, const std::string& file, int line, const std::string& field);

}  // namespace bnsim
