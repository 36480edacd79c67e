#pragma once
#include <stdexcept>
#include <string>

namespace bnsim {

// A problem with user input: names the file (or --set), line and key, and what was expected.
struct ConfigError : std::runtime_error {
    explicit ConfigError(const std::string& m) : std::runtime_error(m) {}
};

}  // namespace bnsim
