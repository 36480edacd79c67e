// The layers, checked on the sources: trace/ includes nothing of the project outside trace/;
// models/ and numerics/ include only the trace (and themselves); kernels/ never include the
// models or the driver; sim/'s libraries (the simulator, each application, the command line)
// include only the libraries they link; and sim/, models/, trace/, numerics/ name no kernel. The CMake
// libraries enforce the same directions at build time (each links only the layers below it).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
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

// sim/'s libraries (sim/CMakeLists.txt): the folders of each, and the libraries each may use
// (itself and those it links, directly or through another).
struct SimLibrary {
    std::set<std::string> folders, uses;
};

const std::map<std::string, SimLibrary>& sim_libraries() {
    static const std::map<std::string, SimLibrary> libs{
        {"sim", {{"config", "schedule", "simulate", "report", "output", "runner", "decision", "sampling"}, {"sim"}}},
        {"calibration", {{"calibration"}, {"sim", "calibration"}}},
        {"measured", {{"measured"}, {"sim", "calibration", "measured"}}},
        {"compare", {{"compare"}, {"sim", "calibration", "measured", "compare"}}},
        {"fit", {{"fit"}, {"sim", "calibration", "measured", "compare", "fit"}}},
        {"sweep", {{"sweep"}, {"sim", "sweep"}}},
        {"sensitivity", {{"sensitivity"}, {"sim", "sensitivity"}}},
        {"tune", {{"tune"}, {"sim", "sensitivity", "tune"}}},
        {"commands",
         {{"commands"}, {"sim", "calibration", "measured", "compare", "fit", "sweep", "sensitivity", "tune", "commands"}}},
    };
    return libs;
}

// The library a sim/ folder belongs to ("" if none).
std::string library_of(const std::string& folder) {
    for (const auto& [name, lib] : sim_libraries())
        if (lib.folders.count(folder)) return name;
    return "";
}

TEST_CASE("layers: every folder of sim/ belongs to one library, and uses only the libraries it links") {
    for (const auto& e : fs::directory_iterator(kRoot / "sim")) {
        if (!e.is_directory()) continue;
        INFO("sim/" << e.path().filename().string());
        CHECK(library_of(e.path().filename().string()) != "");
    }
    const std::regex sim_include(R"(^sim/([a-z_]+)/)");
    for (const auto& [name, lib] : sim_libraries())
        for (const std::string& folder : lib.folders)
            for (const auto& i : project_includes("sim/" + folder)) {
                std::smatch m;
                if (!std::regex_search(i.target, m, sim_include)) continue;
                INFO(i.file << " (library " << name << ") includes " << i.target);
                CHECK(lib.uses.count(library_of(m[1])) == 1);
            }
}

TEST_CASE("layers: the simulator library includes none of its applications' command line or optimizer") {
    // bnsim_sim links neither CLI11 nor NLopt; only bnsim_fit uses NLopt, only bnsim_commands CLI11.
    const std::regex cli(R"(^\s*#\s*include\s*[<"]CLI/)"), nlopt(R"(^\s*#\s*include\s*[<"]nlopt)");
    for (const auto& e : fs::recursive_directory_iterator(kRoot / "sim")) {
        if (!e.is_regular_file()) continue;
        const std::string rel = fs::relative(e.path(), kRoot).string();
        const bool commands = rel.rfind("sim/commands/", 0) == 0 || rel == "sim/main.cpp";
        const bool fit = rel.rfind("sim/fit/", 0) == 0;
        std::ifstream f(e.path());
        std::string line;
        for (int n = 1; std::getline(f, line); ++n) {
            INFO(rel << ":" << n << ": " << line);
            if (!commands) CHECK_FALSE(std::regex_search(line, cli));
            if (!fit) CHECK_FALSE(std::regex_search(line, nlopt));
        }
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
