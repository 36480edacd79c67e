#pragma once
// Small helpers several test files share.
#include <fstream>
#include <sstream>
#include <string>

#include "configfile/config_error.h"
#include "sim/config/run_config.h"

namespace bnsim::test {

// A whole file's bytes ("" if it cannot be read).
inline std::string slurp(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

// The ConfigError message of loading the run config at path with overrides, "" if it loads.
inline std::string config_error_of(const std::string& path, const Overrides& o = {}) {
    try {
        load_run_config(path, o);
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "";
}

}  // namespace bnsim::test
