// Golden outputs: the --json figures of a table of configs (tests/golden/cases.txt) must not move
// unless a change means them to (then scripts/update_goldens.sh regenerates them and the commit
// explains the diff). Refactors are checked against this.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

const std::string kGoldenDir = std::string(BNSIM_SOURCE_DIR) + "/tests/golden";

struct GoldenCase {
    std::string name;
    std::string args;  // shell-quoted bnsim arguments
};

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t");
    if (b == std::string::npos) return "";
    const auto e = s.find_last_not_of(" \t\r");
    return s.substr(b, e - b + 1);
}

std::vector<GoldenCase> golden_cases() {
    std::ifstream in(kGoldenDir + "/cases.txt");
    REQUIRE(in);
    std::vector<GoldenCase> cases;
    std::string line;
    while (std::getline(in, line)) {
        const std::string t = trim(line);
        if (t.empty() || t[0] == '#') continue;
        const auto bar = t.find('|');
        REQUIRE(bar != std::string::npos);
        cases.push_back({trim(t.substr(0, bar)), trim(t.substr(bar + 1))});
    }
    return cases;
}

// Keys that are not results: the build's identity and wall-clock time.
void strip_non_results(nlohmann::json& j) {
    if (j.is_object()) {
        j.erase("provenance");
        j.erase("seconds");
        for (auto& [k, v] : j.items()) strip_non_results(v);
    } else if (j.is_array()) {
        for (auto& v : j) strip_non_results(v);
    }
}

std::string golden_output(const std::string& args, int& status) {
    const std::string cmd = std::string("cd '") + BNSIM_SOURCE_DIR + "' && SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 '" +
                            BNSIM_BINARY + "' " + args + " 2>/dev/null";
    FILE* p = popen(cmd.c_str(), "r");
    REQUIRE(p);
    std::string out;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    status = pclose(p);
    return out;
}

void check_goldens_with_prefix(const std::string& prefix) {
    int checked = 0;
    for (const auto& c : golden_cases()) {
        if (c.name.rfind(prefix, 0) != 0) continue;
        INFO("golden case " << c.name << ": bnsim " << c.args);
        std::ifstream f(kGoldenDir + "/" + c.name + ".json");
        REQUIRE(f);
        nlohmann::json expected = nlohmann::json::parse(f);
        int status = 0;
        const std::string out = golden_output(c.args, status);
        CHECK(status == 0);
        nlohmann::json actual = nlohmann::json::parse(out, nullptr, false);
        REQUIRE_FALSE(actual.is_discarded());
        strip_non_results(expected);
        strip_non_results(actual);
        // On a mismatch, the diff (RFC 6902 paths) says which figures moved.
        INFO("diff: " << nlohmann::json::diff(expected, actual).dump());
        CHECK(actual == expected);
        ++checked;
    }
    CHECK(checked > 0);
}

}  // namespace

TEST_CASE("golden: every golden file has a case and every case a file", "[golden]") {
    std::set<std::string> names, files;
    for (const auto& c : golden_cases()) CHECK(names.insert(c.name).second);
    for (const auto& e : std::filesystem::directory_iterator(kGoldenDir))
        if (e.path().extension() == ".json") files.insert(e.path().stem().string());
    CHECK(names == files);
}

TEST_CASE("golden: trace --json figures unchanged", "[golden]") { check_goldens_with_prefix("trace_"); }
TEST_CASE("golden: run --json figures unchanged", "[golden]") { check_goldens_with_prefix("run_"); }
TEST_CASE("golden: validate --json figures unchanged", "[golden]") { check_goldens_with_prefix("validate_"); }
