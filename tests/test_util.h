#pragma once
// Small helpers several test files share.
#include <filesystem>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "configfile/config_error.h"
#include "sim/config/run_config.h"

namespace bnsim::test {

// A test that cannot check anything on this machine ends its process with this status, which
// ctest reports as "Skipped" (SKIP_RETURN_CODE in tests/CMakeLists.txt), not as passed. Each
// ctest entry runs one case in its own process, so nothing else is cut short.
constexpr int kSkipReturnCode = 77;
[[noreturn]] inline void skip_test(const std::string& why) {
    std::cout << "skipped: " << why << std::endl;
    std::cerr << "skipped: " << why << std::endl;
    std::_Exit(kSkipReturnCode);
}

// A JSON-lines file (a trace dump), one parsed object per line.
inline std::vector<nlohmann::json> read_json_lines(const std::string& path) {
    std::ifstream f(path);
    std::vector<nlohmann::json> out;
    std::string line;
    while (std::getline(f, line)) out.push_back(nlohmann::json::parse(line));
    return out;
}

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

// Writes text to path, replacing what was there.
inline void put(const std::string& path, const std::string& text) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << text;
}

// Writes body to NAME in the temporary directory DIR (created if missing); returns its path.
inline std::string write_temp_file(const std::string& dir, const std::string& name, const std::string& body) {
    const auto folder = std::filesystem::temp_directory_path() / dir;
    std::filesystem::create_directories(folder);
    const auto path = (folder / name).string();
    put(path, body);
    return path;
}

// The seed run config (configs/default.yaml) with overrides.
inline RunConfig default_config(const Overrides& o = {}) {
    return load_run_config(std::string(BNSIM_SOURCE_DIR) + "/configs/default.yaml", o);
}

}  // namespace bnsim::test
