// The layers, checked on the sources: trace/ includes nothing of the project outside trace/;
// models/ and numerics/ include only the trace (and themselves); kernels/ never include the
// models or the driver; and sim/, models/, trace/, numerics/ name no kernel. The CMake
// libraries enforce the same directions at build time (each links only the layers below it).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

const fs::path kRoot = BNSIM_SOURCE_DIR;

// Calls f(place, line) for every line of every file under the layer; place is "path:line".
template <class F>
void for_each_line(const std::string& layer, F f) {
    for (const auto& e : fs::recursive_directory_iterator(kRoot / layer)) {
        if (!e.is_regular_file()) continue;
        std::ifstream in(e.path());
        std::string line;
        for (int n = 1; std::getline(in, line); ++n) f(e.path().string() + ":" + std::to_string(n), line);
    }
}

struct Include {
    std::string file, target;
};

std::vector<Include> project_includes(const std::string& layer) {
    std::vector<Include> out;
    const std::regex inc(R"(^\s*#\s*include\s*"([^"]+)\")");
    for (const auto& e : fs::recursive_directory_iterator(kRoot / layer)) {
        if (!e.is_regular_file()) continue;
        const std::string ext = e.path().extension().string();
        if (ext != ".h" && ext != ".cpp") continue;
        std::ifstream f(e.path());
        std::string line;
        std::smatch m;
        while (std::getline(f, line))
            if (std::regex_search(line, m, inc)) out.push_back({fs::relative(e.path(), kRoot).string(), m[1]});
    }
    return out;
}

std::string top_folder(const std::string& path) { return path.substr(0, path.find('/')); }

// Every include of `layer` goes to one of the allowed top-level folders.
void check_layer(const std::string& layer, const std::set<std::string>& allowed) {
    const auto incs = project_includes(layer);
    CHECK(!incs.empty());
    for (const auto& i : incs) {
        INFO(i.file << " includes " << i.target);
        CHECK(allowed.count(top_folder(i.target)) == 1);
    }
}

}  // namespace

TEST_CASE("layers: trace includes only itself") { check_layer("trace", {"trace"}); }

TEST_CASE("layers: numerics includes only the trace") { check_layer("numerics", {"numerics", "trace"}); }

TEST_CASE("layers: models include only the trace") { check_layer("models", {"models", "trace"}); }

TEST_CASE("layers: kernels include neither the models nor the driver") {
    check_layer("kernels", {"kernels", "trace", "numerics", "configfile"});
}

TEST_CASE("layers: the simulator library includes none of its applications' command line or optimizer") {
    // sim/ is three libraries (sim/CMakeLists.txt): bnsim_sim, the simulator, links neither
    // CLI11 nor NLopt; sim/fit/ (bnsim_fit) adds NLopt, sim/commands/ (bnsim_commands) CLI11.
    const std::regex app_include(R"(^\s*#\s*include\s*[<"](sim/commands/|sim/fit/|CLI/|nlopt))");
    for (const auto& e : fs::recursive_directory_iterator(kRoot / "sim")) {
        if (!e.is_regular_file()) continue;
        const std::string rel = fs::relative(e.path(), kRoot).string();
        if (rel.rfind("sim/commands/", 0) == 0 || rel.rfind("sim/fit/", 0) == 0 || rel == "sim/main.cpp") continue;
        std::ifstream f(e.path());
        std::string line;
        int n = 0;
        while (std::getline(f, line)) {
            ++n;
            INFO(rel << ":" << n << ": " << line);
            CHECK_FALSE(std::regex_search(line, app_include));
        }
    }
    // And the fitting library is not the command line's.
    for (const auto& i : project_includes("sim/fit")) {
        INFO(i.file << " includes " << i.target);
        CHECK(i.target.rfind("sim/commands/", 0) != 0);
    }
}

TEST_CASE("layers: the generic layers print no kernel's own fields and read no kernel info by key") {
    // A kernel's decisions and summary fields (batch_norm_bwd's f_tile, interleave, ...) reach the
    // reports through the kernel's entry (summary fields, its report lines); a string in generic
    // code that names one is a report printing a kernel's field by name. Comments may name them.
    const std::regex field(R"("[^"]*\b(f_tile|interleave|direct_x_residency|n_sp_tiles|replication)\b[^"]*")");
    // Nor does generic code read a generated kernel's `info` by key: what it needs is typed
    // (KernelSummary, GeneratedKernel::measured_instructions) or the entry's to add.
    const std::regex info_key(R"re(\binfo(\[|\.contains\(|\.at\(|\.value\()")re");
    for_each_line("sim", [&](const std::string& place, const std::string& line) {
        const auto comment = line.find("//");
        const std::string code = comment == std::string::npos ? line : line.substr(0, comment);
        INFO(place << ": " << line);
        CHECK_FALSE(std::regex_search(code, field));
        CHECK_FALSE(std::regex_search(code, info_key));
    });
}

TEST_CASE("layers: the generic layers name no kernel") {
    const std::regex kernel_name(R"(batch_norm|bn::)");
    for (const char* layer : {"sim", "models", "trace", "numerics"})
        for_each_line(layer, [&](const std::string& place, const std::string& line) {
            INFO(place << ": " << line);
            CHECK_FALSE(std::regex_search(line, kernel_name));
        });
}
