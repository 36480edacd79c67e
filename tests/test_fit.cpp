// bnsim fit: recovers hardware parameters from measurements bnsim generated with them perturbed
// by a known amount plus 1% noise; says when the data cannot identify a parameter.
#include <catch2/catch.hpp>

#include "sim/runner/under_asan.h"
#include "tests/cli_run.h"
#include "tests/test_util.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <random>

#include <nlohmann/json.hpp>
#include "tests/source_paths.h"

using namespace bnsim;
using json = nlohmann::json;

namespace {

const std::string kBase = kSrc + "/configs/calibration/m1_dma_copy.yaml";

// bnsim's standard output then its standard error, and its exit status.
std::string fit_dir(const std::string& name) { return test::make_temp_dir(("bnsim_test_fit_" + name).c_str()); }

// Measurements of DMA copies of several sizes, simulated with `truth` set, times (1 + noise).
std::string synthetic_measurements(const std::string& dir, const std::string& truth, double noise) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(-noise, noise);
    std::ofstream csv(dir + "/measured.csv");
    csv << "dma_copy.partitions,dma_copy.free,dma_copy.count,latency_us\n";
    for (int free : {512, 4096, 16384})
        for (int count : {1, 4}) {
            const std::string keys = "--set dma_copy.partitions=128 --set dma_copy.free=" + std::to_string(free) +
                                     " --set dma_copy.count=" + std::to_string(count);
            int st = 0;
            const std::string out = test::bnsim_output("run " + kBase + " --json " + keys + " " + truth, &st);
            REQUIRE(st == 0);
            const double lat = json::parse(out)["latency_ns"].get<double>() / 1000.0 * (1.0 + u(rng));
            csv << "128," << free << "," << count << "," << std::setprecision(10) << lat << "\n";
        }
    return dir + "/measured.csv";
}

}  // namespace

TEST_CASE("fit recovers perturbed parameters from 1%-noisy bnsim measurements and the error falls") {
    // Hundreds of child simulations: 90 s under ASan, where the same search runs in
    // test_fit_recovery.cpp on closed forms; the full build checks it with bnsim itself.
    if (BNSIM_UNDER_ASAN) test::skip_test("hundreds of child simulations: run in the Release suite");
    const std::string dir = fit_dir("recovery");
    // Truth: launch cost +15%, DMA engine bandwidth -10% of the preset's 9400 ns and 23 B/ns.
    const double launch = 9400 * 1.15, bw = 23 * 0.90;
    const std::string data = synthetic_measurements(
        dir, "--set hardware.launch.fixed_ns=" + std::to_string(launch) + " --set hardware.dma.engine_bandwidth_gbps=" + std::to_string(bw), 0.01);
    int st = 0;
    const std::string out = test::bnsim_output("fit " + data + " --against " + kBase +
                                      " --params launch.fixed_ns=5000:15000,dma.engine_bandwidth_gbps=10:40 --json --out " +
                                      dir + "/fitted.yaml",
                                  &st);
    INFO(out);
    REQUIRE(st == 0);
    const json j = json::parse(out);
    CHECK(j["params"][0]["value"].get<double>() == Approx(launch).epsilon(0.05));
    CHECK(j["params"][1]["value"].get<double>() == Approx(bw).epsilon(0.05));
    CHECK(j["params"][0]["identifiable"] == true);
    CHECK(j["params"][1]["identifiable"] == true);
    CHECK(j["mape_after_pct"].get<double>() < j["mape_before_pct"].get<double>());
    CHECK(j["mape_after_pct"].get<double>() < 1.5);

    // The fitted preset loads, carries the provenance, and compare shows the improvement.
    const std::string yaml = test::slurp(dir + "/fitted.yaml");
    CHECK(yaml.find("fitted by bnsim fit") != std::string::npos);
    CHECK(yaml.find(data) != std::string::npos);
    const json before = json::parse(test::bnsim_output("compare " + data + " --against " + kBase + " --json", &st));
    const json after = json::parse(test::bnsim_output("compare " + data + " --against " + kBase + " --json --set hardware=" + dir + "/fitted.yaml", &st));
    CHECK(after["mape_pct"].get<double>() < before["mape_pct"].get<double>());
}

TEST_CASE("fit reports a parameter the data cannot identify") {
    const std::string dir = fit_dir("unidentifiable");
    std::ofstream(dir + "/m.csv") << "dma_copy.free,latency_us\n4096,12\n512,10.5\n";
    int st = 0;
    // Software DGE issue time: these copies use the hardware DGE, so no point moves with it.
    const std::string out = test::bnsim_output("fit " + dir + "/m.csv --against " + kBase +
                                      " --params launch.fixed_ns=5000:15000 --params dma.sw_dge_issue_ns=100:5000 --json --max-evals 30",
                                  &st);
    INFO(out);
    REQUIRE(st == 0);
    const json j = json::parse(out);
    CHECK(j["params"][0]["identifiable"] == true);
    CHECK(j["params"][1]["identifiable"] == false);
    CHECK(j["params"][1]["why"] == "no measured point changes with it");
    CHECK(j["params"][1]["value"] == j["params"][1]["start"]);  // kept, not moved by the optimizer's wander
}

TEST_CASE("fit recovers the seed shape's queue occupancy from six exact points within 2% (a jagged response)") {
    if (BNSIM_UNDER_ASAN) test::skip_test("hundreds of child simulations (174 s under ASan): run in the Release suite");
    // Issue 26's example: f_tile 256/512/1024 x interleave 2/4 measured at
    // dma.min_queue_occupancy_ns=1200. e24c574's local BOBYQA stopped in a local minimum at 773.75.
    const std::string dir = fit_dir("occupancy");
    std::ofstream csv(dir + "/occ.csv");
    csv << "memory.f_tile,memory.interleave,memory.direct_x_residency,latency_us\n";
    for (int f : {256, 512, 1024})
        for (int il : {2, 4}) {
            int st = 0;
            const std::string out = test::bnsim_output("run " + kSrc + "/configs/default.yaml --json --set memory.f_tile=" +
                                                           std::to_string(f) + " --set memory.interleave=" + std::to_string(il) +
                                                           " --set memory.direct_x_residency=true"
                                                           " --set hardware.dma.min_queue_occupancy_ns=1200",
                                                       &st);
            REQUIRE(st == 0);
            csv << f << "," << il << ",true," << std::setprecision(17) << json::parse(out)["latency_ns"].get<double>() / 1000 << "\n";
        }
    csv.close();
    int st = 0;
    const std::string out = test::bnsim_output("fit " + dir + "/occ.csv --against " + kSrc +
                                                   "/configs/default.yaml --params dma.min_queue_occupancy_ns=600:2000 --json",
                                               &st, 900);
    INFO(out);
    REQUIRE(st == 0);
    const json j = json::parse(out);
    const json& p = j["params"][0];
    CHECK(p["value"].get<double>() == Approx(1200).epsilon(0.02));
    CHECK(p["at_bound"].is_null());
    CHECK(p["interval"][0].get<double>() <= 1200);
    CHECK(p["interval"][1].get<double>() >= 1200);
    CHECK(j["rms_after_pct"].get<double>() < 0.25);
}

TEST_CASE("fit searches an integer parameter at whole values and a flag as its two values") {
    // e24c574's local search passed hbm.channels=18.8 to a child, which refused it (exit 1).
    const std::string dir = fit_dir("kinds");
    const std::string data = synthetic_measurements(dir, "--set hardware.hbm.channels=24", 0.0);
    int st = 0;
    const std::string out = test::bnsim_output("fit " + data + " --against " + kBase +
                                                   " --params hbm.channels=16:32 --params dma.merge_contiguous_rows --json",
                                               &st, 600);
    INFO(out);
    REQUIRE(st == 0);
    const json j = json::parse(out);
    CHECK(j["params"][0]["kind"] == "integer");
    CHECK(j["params"][1]["kind"] == "boolean");
    const double channels = j["params"][0]["value"].get<double>(), merge = j["params"][1]["value"].get<double>();
    CHECK(channels == std::round(channels));
    CHECK((merge == 0 || merge == 1));
    CHECK(j["rms_after_pct"].get<double>() <= j["rms_before_pct"].get<double>());
    CHECK(j["method"].get<std::string>().find("Halton") != std::string::npos);
}

TEST_CASE("fit: bad parameter names and bounds exit 2") {
    int st = 0;
    const std::string data = kSrc + "/configs/measured/m4_vector_add.csv";
    std::string out = test::bnsim_output("fit " + data + " --params dma.no_such_ns=1:2", &st);
    CHECK(st == 2);
    CHECK(out.find("dma.no_such_ns") != std::string::npos);
    out = test::bnsim_output("fit " + data + " --params launch.fixed_ns=9:1", &st);
    CHECK(st == 2);
    CHECK(out.find("lower bound") != std::string::npos);
    out = test::bnsim_output("fit " + data + " --params launch.fixed_ns=a:b", &st);
    CHECK(st == 2);
    CHECK(out.find("expected NAME=LO:HI") != std::string::npos);
}

TEST_CASE("fit takes two spellings of one hardware preset as one preset") {
    // Two run configs naming configs/hw/trn2.yaml by different relative paths (the public dataset's
    // calibration configs and its NKI rows do): one preset, so the fit runs.
    const std::string dir = fit_dir("two-spellings");
    std::filesystem::create_directories(dir + "/sub");
    const std::string body = "kernel: dma_copy\ndma_copy: {partitions: 128, free: 512, dtype: bfloat16}\n";
    std::ofstream(dir + "/a.yaml") << "hardware: " << kSrc << "/configs/hw/trn2.yaml\n" << body;
    std::ofstream(dir + "/sub/b.yaml") << "hardware: " << kSrc << "/configs/hw/../hw/trn2.yaml\n" << body;
    std::ofstream(dir + "/m.csv") << "id,config,latency_us\nA," << dir << "/a.yaml,12\nB," << dir << "/sub/b.yaml,12\n";
    int st = 0;
    const std::string out = test::bnsim_output("fit " + dir + "/m.csv --params launch.fixed_ns=5000:15000 --json --max-evals 4", &st);
    INFO(out);
    REQUIRE(st == 0);
    CHECK(json::parse(out)["params"][0]["name"] == "launch.fixed_ns");
}
