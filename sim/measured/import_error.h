#pragma once
// A measured-data file bnsim cannot read: the message names the file, the line (or record) and
// the field, and what was expected. It is bad input, so it derives from ConfigError (exit 2).
#include <string>

#include "configfile/config_error.h"

namespace bnsim {

struct ImportError : ConfigError {
    using ConfigError::ConfigError;
};

// "FILE:LINE: field 'F': WHAT" (line 0 or field "" are left out).
[[noreturn]] void import_fail(const std::string& file, int line, const std::string& field, const std::string& what);

// A number in a field, or an ImportError naming file, line and field.
double parse_number(const std::string& text, const std::string& file, int line, const std::string& field);

}  // namespace bnsim
