// The command line as a script sees it: usage errors exit 2 and name the commands, --version,
// provenance in every output, and byte-identical JSON for identical runs.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "cli_run.h"
#include "test_util.h"
#include "configfile/config_error.h"
#include "sim/config/canonical_json.h"
#include "sim/config/run_config.h"
#include "sim/report/provenance.h"
#include "tests/source_paths.h"

using json = nlohmann::json;
using bnsim::test::CliResult;
using bnsim::test::make_temp_dir;
using bnsim::test::slurp;

namespace {

const std::vector<std::string> kSmall = {"--set", "shape.B=2", "--set", "shape.H=8", "--set", "shape.W=8"};

// bnsim with args, run from the source tree (relative config paths as in the README).
CliResult bnsim_cli(std::vector<std::string> args, const std::vector<std::string>& more = {}) {
    args.insert(args.end(), more.begin(), more.end());
    bnsim::test::CliOptions o;
    o.cwd = kSrc;
    o.timeout_s = 120;
    return bnsim::test::run_bnsim(args, o);
}

// args followed by the small shape, then tail.
std::vector<std::string> small(std::vector<std::string> args, const std::vector<std::string>& tail = {}) {
    args.insert(args.end(), kSmall.begin(), kSmall.end());
    args.insert(args.end(), tail.begin(), tail.end());
    return args;
}

bool contains_key(const json& j, const std::string& key) {
    if (j.is_object()) {
        for (const auto& [k, v] : j.items())
            if (k == key || contains_key(v, key)) return true;
    } else if (j.is_array()) {
        for (const auto& v : j)
            if (contains_key(v, key)) return true;
    }
    return false;
}

std::string last_line(const std::string& s) {
    std::string t = s;
    while (!t.empty() && t.back() == '\n') t.pop_back();
    return t.substr(t.rfind('\n') == std::string::npos ? 0 : t.rfind('\n') + 1);
}

const std::regex kHash("fnv1a64:[0-9a-f]{16}");

}  // namespace

TEST_CASE("usage errors exit 2 and a mistyped command names the commands", "[cli]") {
    const CliResult typo = bnsim_cli({"rnu", "configs/default.yaml"});
    CHECK(typo.exit_code == 2);
    CHECK_THAT(typo.err, Catch::Contains("unknown command 'rnu'") &&
                             Catch::Contains("trace, run, validate, calibrate, params, sweep, merge, compare, fit, sensitivity or tune") &&
                             Catch::Contains("did you mean 'run'?"));
    CHECK(typo.out.empty());
    const CliResult far = bnsim_cli({"frobnicate", "configs/default.yaml"});
    CHECK(far.exit_code == 2);
    CHECK_THAT(far.err, Catch::Contains("unknown command 'frobnicate'") && !Catch::Contains("did you mean"));
    const CliResult none = bnsim_cli({});
    CHECK(none.exit_code == 2);
    CHECK_THAT(none.err, Catch::Contains("a command is required: trace, run, validate, calibrate, params, sweep, merge, compare, fit, sensitivity or tune"));
    CHECK(bnsim_cli({"run"}).exit_code == 2);                                                  // missing CONFIG (CLI11: 106)
    CHECK(bnsim_cli({"run", "configs/default.yaml", "--no-such-option"}).exit_code == 2);      // extra argument (109)
    CHECK(bnsim_cli({"validate", "configs/default.yaml", "--order", "sideways"}).exit_code == 2);  // validation (105)
    CHECK(bnsim_cli({"calibrate", "--timeout"}).exit_code == 2);                               // option without its value
}

TEST_CASE("bnsim --version prints the build's version and --help exits 0", "[cli]") {
    const CliResult v = bnsim_cli({"--version"});
    CHECK(v.exit_code == 0);
    CHECK(v.out == std::string("bnsim ") + bnsim::bnsim_version() + "\n");
    CHECK(std::string(bnsim::bnsim_version()).size() > 0);
    const CliResult h = bnsim_cli({"--help"});
    CHECK(h.exit_code == 0);
    CHECK_THAT(h.out, Catch::Contains("--version"));
}

TEST_CASE("validate --json carries no wall-clock time: identical runs give identical bytes", "[cli][numerics]") {
    const auto args = small({"validate", "configs/default.yaml"}, {"--order", "sequential", "--json"});
    const CliResult a = bnsim_cli(args), b = bnsim_cli(args);
    REQUIRE(a.exit_code == 0);
    CHECK(a.out == b.out);
    CHECK_FALSE(contains_key(json::parse(a.out), "seconds"));
}

TEST_CASE("every JSON output and report carries the bnsim version and the config hash", "[cli][provenance]") {
    const std::string dir = make_temp_dir("bnsim_cli");
    REQUIRE_FALSE(dir.empty());
    const CliResult run = bnsim_cli(small({"run", "configs/default.yaml"}, {"--json", "--timeline", dir + "/tl.json"}));
    REQUIRE(run.exit_code == 0);
    const json p = json::parse(run.out)["provenance"];
    CHECK(p["bnsim_version"] == bnsim::bnsim_version());
    CHECK(std::regex_match(p["config_hash"].get<std::string>(), kHash));
    CHECK(json::parse(slurp(dir + "/tl.json"))["provenance"] == p);

    const CliResult est = bnsim_cli(small({"run", "configs/default.yaml"}, {"--estimate", "--json"}));
    REQUIRE(est.exit_code == 0);
    CHECK(json::parse(est.out)["provenance"] == p);

    const CliResult trace = bnsim_cli(small({"trace", "configs/default.yaml"}, {"--json", "--dump", dir + "/trace.jsonl"}));
    REQUIRE(trace.exit_code == 0);
    CHECK(json::parse(trace.out)["provenance"] == p);
    std::ifstream dump(dir + "/trace.jsonl");
    std::string header;
    std::getline(dump, header);
    CHECK(json::parse(header)["provenance"] == p);

    const CliResult val = bnsim_cli(small({"validate", "configs/default.yaml"}, {"--order", "sequential", "--json"}));
    REQUIRE(val.exit_code == 0);
    CHECK(json::parse(val.out)["provenance"] == p);

    const CliResult params = bnsim_cli(small({"params", "configs/default.yaml"}, {"--json"}));
    REQUIRE(params.exit_code == 0);
    CHECK(json::parse(params.out)["provenance"] == p);

    const CliResult cal = bnsim_cli({"calibrate", "--only", "M5", "--json"});
    REQUIRE(cal.exit_code == 0);
    const json cp = json::parse(cal.out)["provenance"];
    CHECK(cp["bnsim_version"] == bnsim::bnsim_version());
    CHECK(std::regex_match(cp["config_hash"].get<std::string>(), kHash));
    CHECK(cp["config_hash"] != p["config_hash"]);

    // Text reports end with one provenance line.
    const std::string line = "provenance  bnsim " + std::string(bnsim::bnsim_version()) + ", config " +
                             p["config_hash"].get<std::string>();
    CHECK(last_line(bnsim_cli(small({"run", "configs/default.yaml"})).out) == line);
    CHECK(last_line(bnsim_cli(small({"trace", "configs/default.yaml"})).out) == line);
    CHECK(last_line(bnsim_cli(small({"validate", "configs/default.yaml"}, {"--order", "sequential"})).out) == line);
    CHECK(last_line(bnsim_cli(small({"params", "configs/default.yaml"})).out) == line);
    CHECK(last_line(bnsim_cli({"calibrate", "--only", "M5"}).out) ==
          "provenance  bnsim " + std::string(bnsim::bnsim_version()) + ", config " + cp["config_hash"].get<std::string>());
    // With the file on standard output, the text report and its provenance line go to stderr.
    CHECK(last_line(bnsim_cli(small({"run", "configs/default.yaml"}, {"--timeline", "-"})).err) == line);
    std::filesystem::remove_all(dir);
}

TEST_CASE("the config hash covers the resolved config and hardware, not its spelling", "[provenance]") {
    using bnsim::load_run_config;
    using bnsim::provenance_of;
    const std::string base = provenance_of(load_run_config(kDefault)).config_hash;
    CHECK(std::regex_match(base, kHash));
    CHECK(provenance_of(load_run_config(kDefault)).config_hash == base);  // stable

    // Same settings, other key order, block style and comments: same hash.
    const std::string dir = make_temp_dir("bnsim_cli");
    REQUIRE_FALSE(dir.empty());
    std::ofstream(dir + "/reordered.yaml") << "# the seed shape, written differently\n"
                                              "memory: auto\nlnc: 1\neps: 1.0e-5\nrelu_mask: none\n"
                                              "fuse_relu: false\ndtype: bfloat16\n"
                                              "shape:\n  W: 64\n  H: 64\n  D: 1\n  C: 64\n  B: 64\n"
                                              "kernel: batch_norm_bwd\nhardware: trn2\n";
    CHECK(provenance_of(load_run_config(dir + "/reordered.yaml")).config_hash == base);
    std::filesystem::remove_all(dir);

    // A run value or a hardware value changed by --set: another hash; set back to its value: the same.
    CHECK(provenance_of(load_run_config(kDefault, {{"shape.C", "65"}})).config_hash != base);
    CHECK(provenance_of(load_run_config(kDefault, {{"hardware.dma.min_queue_occupancy_ns", "801"}})).config_hash != base);
    CHECK(provenance_of(load_run_config(kDefault, {{"shape.C", "64"}})).config_hash == base);
}

TEST_CASE("canonical JSON of a YAML tree: sorted keys, aliases expanded, alias bombs refused", "[provenance]") {
    using bnsim::canonical_json;
    CHECK(canonical_json(YAML::Load("{b: 1, a: [x, {d: 2, c: 3}], e: ~}")) ==
          R"({"a":["x",{"c":"3","d":"2"}],"b":"1","e":null})");
    CHECK(canonical_json(YAML::Load("a: &v {k: 1}\nb: *v")) == R"({"a":{"k":"1"},"b":{"k":"1"}})");
    // 10 levels of 10 aliases each would expand to 10^10 nodes.
    std::string bomb = "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n";
    for (int i = 1; i < 10; ++i) {
        bomb += "l" + std::to_string(i) + ": &l" + std::to_string(i) + " [";
        for (int k = 0; k < 10; ++k) bomb += std::string(k ? ", " : "") + "*l" + std::to_string(i - 1);
        bomb += "]\n";
    }
    CHECK_THROWS_AS(canonical_json(YAML::Load(bomb)), bnsim::ConfigError);
}

TEST_CASE("bnsim_tests run directly: a case building SystemC modules itself after a simulating one says each needs its own", "[cli]") {
    // simulate() gives each simulation a fresh SystemC context, but a case that builds its own
    // modules and calls sc_start (the DMA scheduler's) elaborates in the current one: run after
    // a case that simulated, in one process (this very test binary), it fails (E529) and says why.
    const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
    const std::string dir = make_temp_dir("bnsim_cli");
    REQUIRE_FALSE(dir.empty());
    // One test spec, two names (Catch2 v2 joins separate arguments into one name).
    const std::string cmd = "'" + self + "' " +
                            "'timing: a sendrecv whose peer never comes is reported,"
                            "DMA scheduler: descriptors reaching two engines at one instant reserve HBM in engine order' "
                            ">'" + dir + "/out' 2>'" + dir + "/err'";
    const int st = std::system(cmd.c_str());
    CHECK((WIFEXITED(st) && WEXITSTATUS(st) != 0));
    CHECK_THAT(slurp(dir + "/out") + slurp(dir + "/err"),
               Catch::Contains("already elaborated SystemC in this process") && Catch::Contains("needs its own process"));
    std::filesystem::remove_all(dir);
}
