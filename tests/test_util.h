#pragma once
// Small helpers several test files share.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/runner/under_asan.h"  // before the #if below
#if BNSIM_UNDER_ASAN
#include <sanitizer/lsan_interface.h>
#endif

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
// A case that runs SystemC threads in its own process and leaves them alive at exit: SystemC
// guards each thread's coroutine stack with a PROT_NONE page inside a heap block, and
// LeakSanitizer's end-of-process scan of the heap faults on such a page in some runs ("Tracer
// caught signal 11"). Under ASan this runs the leak check now, before any thread exists, which
// also ends leak checking for the process (the case's other sanitizer checks stay on). The
// models it runs are leak-checked through the cases that simulate via bnsim itself.
inline void leak_check_before_systemc_threads() {
#if BNSIM_UNDER_ASAN
    __lsan_do_leak_check();
#endif
}

inline std::string slurp(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

// The chart specs of a report page, in page order (sim/report/chart_page.h). An unterminated
// spec yields an empty list, which every caller's count check catches.
inline std::vector<nlohmann::json> chart_specs(const std::string& html) {
    std::vector<nlohmann::json> out;
    const std::string open = "<script type=\"application/json\" class=\"bnsim-chart\">";
    for (size_t pos = 0; (pos = html.find(open, pos)) != std::string::npos;) {
        pos += open.size();
        const size_t end = html.find("</script>", pos);
        if (end == std::string::npos) return {};
        out.push_back(nlohmann::json::parse(html.substr(pos, end - pos)));
        pos = end;
    }
    return out;
}

// Opens a report page in headless Chromium and returns what its drawing code left on <body>:
// 'data-charts="N" data-chart-errors="..."', or "" when nothing was drawn. Callers skip when
// has_chromium() is false.
inline bool has_chromium() { return std::system("command -v chromium > /dev/null 2>&1") == 0; }
inline std::string charts_drawn_in_chromium(const std::string& page, const std::string& profile_dir) {
    const std::string cmd = "timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir=" + profile_dir +
                            " --dump-dom 'file://" + std::filesystem::absolute(page).string() + "' 2>/dev/null";
    std::string dom;
    if (FILE* f = popen(cmd.c_str(), "r")) {
        char buf[65536];
        for (size_t n; (n = fread(buf, 1, sizeof buf, f)) > 0;) dom.append(buf, n);
        pclose(f);
    }
    const size_t at = dom.find("data-charts=\"");
    if (at == std::string::npos) return "";
    const size_t e1 = dom.find("data-chart-errors=\"", at);
    const size_t e2 = e1 == std::string::npos ? e1 : dom.find('"', e1 + 19);
    return e2 == std::string::npos ? "" : dom.substr(at, e2 + 1 - at);
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

// A Python interpreter for the NKI frontend that counts its starts: DIR/py.sh runs Debian's
// python3 (or the first on PATH) and adds a line to DIR/starts each time. Returns its path.
inline std::string counting_python(const std::string& dir) {
    const std::string py = dir + "/py.sh";
    put(py, "#!/bin/sh\necho start >> " + dir + "/starts\nexec " +
                std::string(access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3") + " \"$@\"\n");
    chmod(py.c_str(), 0755);
    return py;
}

// How many times the interpreter counting_python(DIR) made has started.
inline long python_starts(const std::string& dir) {
    const std::string s = slurp(dir + "/starts");
    return long(std::count(s.begin(), s.end(), '\n'));
}

// The seed run config (configs/default.yaml) with overrides.
inline RunConfig default_config(const Overrides& o = {}) {
    return load_run_config(std::string(BNSIM_SOURCE_DIR) + "/configs/default.yaml", o);
}

}  // namespace bnsim::test
