// bnsim tune: its answer checked against a brute-force sweep of the same axes in full simulation,
// the tie rule and the model-error rule that decide "keep the kernel's choice", the kernel's own
// axes for a config's inputs, an NKI kernel's `tune:` args, and the figures every command shares.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

#include <nlohmann/json.hpp>

#include "kernels/kernel_entry.h"
#include "sim/config/run_config.h"
#include "sim/decision/decision_grid.h"
#include "tests/cli_run.h"
#include "tests/source_paths.h"

using namespace bnsim;
using json = nlohmann::json;

namespace {

json tuned(const std::string& args) {
    int st = 0;
    const std::string out = test::bnsim_output("tune " + args + " --json", &st, 600);
    INFO(out);
    REQUIRE(st == 0);
    return json::parse(out);
}

// Every latency of a results.jsonl by its config label as tune spells it (f_tile=... interleave=...
// direct_x_residency=...), and the kernel's own choice (the auto point) under "auto".
std::map<std::string, double> sweep_latencies(const std::string& dir) {
    std::map<std::string, double> m;
    std::ifstream f(dir + "/results.jsonl");
    for (std::string line; std::getline(f, line);) {
        const json r = json::parse(line);
        if (r["status"] != "ok") continue;
        const double l = r["run"]["latency_ns"].get<double>();
        if (r["auto"].get<bool>()) {
            m["auto"] = l;
            continue;
        }
        const json& p = r["params"];
        m["f_tile=" + p["memory.f_tile"].get<std::string>() + " interleave=" + p["memory.interleave"].get<std::string>() +
          " direct_x_residency=" + p["memory.direct_x_residency"].get<std::string>()] = l;
    }
    return m;
}

}  // namespace

TEST_CASE("tune: the kernel's axes for a config span its legal f_tile chain, every interleave, residency on and off") {
    const KernelEntry* e = find_kernel("batch_norm_bwd");
    REQUIRE(e);
    REQUIRE(e->tune_axes);
    auto axes_for = [&](const Overrides& ov) {
        const RunConfig c = load_run_config(kDefault, ov);
        return e->tune_axes(c.kernel_params, c.target());
    };
    // Spatial 64 x 64 = 4096, bf16: the halving chain from 4096 while a tile's DMA moves at least
    // 256 B per partition (f_tile 128 x 2 B).
    const auto seed = axes_for({});
    REQUIRE(seed.size() == 3);
    CHECK(seed[0].key == "memory.f_tile");
    CHECK(seed[0].values == std::vector<std::string>{"4096", "2048", "1024", "512", "256", "128"});
    CHECK(seed[1].values == std::vector<std::string>{"1", "2", "3", "4", "5", "6", "7", "8"});
    CHECK(seed[2].values == std::vector<std::string>{"true", "false"});
    // Spatial 16 x 5 x 7 = 560: integer halving 560, 280, 140 (280 B), not 70 (140 B); in fp32
    // 70 moves 280 B and is tried, 35 is not.
    const Overrides odd{{"shape.D", "16"}, {"shape.H", "5"}, {"shape.W", "7"}};
    CHECK(axes_for(odd)[0].values == std::vector<std::string>{"560", "280", "140"});
    Overrides odd32 = odd;
    odd32.emplace_back("dtype", "float32");
    CHECK(axes_for(odd32)[0].values == std::vector<std::string>{"560", "280", "140", "70"});
    // A tiny spatial size still tries the kernel's largest f_tile: 5 x 7 = 35.
    CHECK(axes_for({{"shape.H", "5"}, {"shape.W", "7"}})[0].values == std::vector<std::string>{"35"});
    // Spatial 16 x 64 x 64 = 65536: the chain starts at the kernel's maximum, 8192.
    CHECK(axes_for({{"shape.D", "16"}})[0].values.front() == "8192");
    CHECK(axes_for({{"shape.D", "16"}})[0].values.back() == "128");
}

TEST_CASE("tune: decision grids are cartesian, labelled in axis order, and counted before they are built") {
    const auto g = grid_points({{"memory.f_tile", {"512", "1024"}}, {"memory.direct_x_residency", {"true", "false"}}}, 10, "t");
    REQUIRE(g.size() == 4);
    CHECK(g[0].label == "f_tile=512 direct_x_residency=true");
    CHECK(g[3].label == "f_tile=1024 direct_x_residency=false");
    CHECK(g[1].sets == Overrides{{"memory.f_tile", "512"}, {"memory.direct_x_residency", "false"}});
    CHECK_THROWS_WITH(grid_points({{"a", std::vector<std::string>(100, "1")}, {"b", std::vector<std::string>(100, "1")}}, 2000, "t"),
                      Catch::Contains("the grid is 100 x 100 = 10000 configs; expected at most 2000"));
    CHECK(within_tie(100.5, 100, kTiePct));
    CHECK_FALSE(within_tie(100.51, 100, kTiePct));
}

TEST_CASE("tune: where the kernel's search is slow, tune names the brute-force best and says by how much") {
    // B=1 C=128 64 x 64: the kernel takes the largest f_tile that fits (4096) at interleave 1;
    // smaller tiles in flight several at a time are faster. A sweep of the same 96 points in full
    // simulation is the independent answer.
    const std::string dir = test::make_temp_dir("bnsim-tune");
    {
        std::ofstream c(dir + "/layer.yaml");
        c << "hardware: trn2\nkernel: batch_norm_bwd\nshape: {B: 1, C: 128, D: 1, H: 64, W: 64}\n";
        std::ofstream s(dir + "/grid.yaml");
        s << "base: layer.yaml\ngrid:\n  memory.f_tile: [4096, 2048, 1024, 512, 256, 128]\n"
             "  memory.interleave: {from: 1, to: 8}\n  memory.direct_x_residency: [true, false]\n";
    }
    int st = 0;
    const std::string sw = test::bnsim_output("sweep " + dir + "/grid.yaml -j 2 --out " + dir + "/out", &st, 600);
    INFO(sw);
    REQUIRE(st == 0);
    const auto all = sweep_latencies(dir + "/out");
    REQUIRE(all.count("auto"));
    double best = 1e300;
    for (const auto& [label, l] : all)
        if (label != "auto") best = std::min(best, l);

    const json t = tuned(dir + "/layer.yaml --samples 16");
    CHECK(t["screened"] == 96);
    CHECK(t["infeasible"].get<size_t>() == 96 - (all.size() - 1));  // the points the sweep could not run
    // What tune recommends is the sweep's best (within the tie), at the latency the sweep ran it at.
    const std::string use = t["use"]["config"];
    REQUIRE(all.count(use));
    CHECK(t["use"]["latency_ns"].get<double>() == Approx(all.at(use)).margin(0.001));
    CHECK(within_tie(all.at(use), best, kTiePct));
    CHECK(t["use"]["own"] == false);
    CHECK(t["own"]["config"] == "f_tile=4096 interleave=1 direct_x_residency=true");
    CHECK(t["own"]["latency_ns"].get<double>() == Approx(all.at("auto")).margin(0.001));
    const double diff = (all.at("auto") - all.at(use)) / all.at("auto") * 100;
    CHECK(t["difference_pct"].get<double>() == Approx(diff).margin(0.006));
    CHECK(diff > t["uncertainty"]["model_error_pct"].get<double>());
    CHECK(t["keep_own"] == false);
    // Every confirmed config ran as the sweep ran it; shares are fractions of the samples and the
    // kernel's is the probability that its choice is best.
    for (const auto& c : t["confirmed"]) {
        if (c["own"].get<bool>()) {
            CHECK(c["best_share"] == t["choice_best_probability"]);
            continue;
        }
        REQUIRE(all.count(c["config"].get<std::string>()));
        CHECK(c["latency_ns"].get<double>() == Approx(all.at(c["config"].get<std::string>())).margin(0.001));
        CHECK(c["best_share"].get<double>() >= 0);
        CHECK(c["best_share"].get<double>() <= 1);
    }
    CHECK(t["uncertainty"]["samples"] == 16);
    CHECK(t["uncertainty"]["widened_p5_ns"].get<double>() <= t["use"]["latency_ns"].get<double>());
    CHECK(t["uncertainty"]["widened_p95_ns"].get<double>() >= t["use"]["latency_ns"].get<double>());
    // Residency: the best with it on against the best with it off, the figure the sweep's summary gives.
    const json summary = json::parse(std::ifstream(dir + "/out/summary.json"));
    const json& flip = summary["contexts"][0]["on_off_decisions"][0];
    REQUIRE(t["on_off_decisions"].size() == 1);
    CHECK(t["on_off_decisions"][0]["saves_ns"].get<double>() == Approx(flip["saves_ns"].get<double>()).margin(0.002));
    std::filesystem::remove_all(dir);
}

TEST_CASE("tune: the kernel's choice is kept on a tie and when the difference is within the model's own error") {
    // The seed shape: four interleaves at f_tile 4096 simulate alike; the kernel's own is one of them.
    const json seed = tuned(kDefault + " --samples 4");
    CHECK(seed["keep_own"] == true);
    CHECK(seed["use"]["own"] == true);
    CHECK(seed["best"]["config"] == seed["own"]["config"]);
    CHECK(seed["difference_pct"] == 0.0);
    // --samples 0: no robustness check, the preset alone decides: the kernel's choice is best.
    // --out writes the same report as JSON and as a page.
    const std::string dir = test::make_temp_dir("bnsim-tune-out");
    const json none = tuned(kDefault + " --samples 0 --out " + dir + "/o");
    CHECK(none["choice_best_probability"] == 1.0);
    CHECK(none["uncertainty"]["samples"] == 0);
    const json written = json::parse(std::ifstream(dir + "/o/tune.json"));
    CHECK(written["use"] == none["use"]);
    std::ifstream page(dir + "/o/tune.html");
    const std::string html((std::istreambuf_iterator<char>(page)), std::istreambuf_iterator<char>());
    CHECK(html.find("<h2>Use f_tile=4096 interleave=7 direct_x_residency=true (the kernel's own choice)</h2>") != std::string::npos);
    CHECK(html.find("</html>") != std::string::npos);
    std::filesystem::remove_all(dir);

    // The LNC=2 layer with a supplied ReLU mask: f_tile 4096 interleave 5 is faster than the
    // kernel's 8192/2 by under the 0.5% tie, and with --tie 0.1 by more than the tie but less
    // than the model's own error (1.6%): either way the answer is to keep the kernel's choice.
    const std::string layer = kSrc + "/configs/layers/bn3d_relu_lnc2.yaml";
    const json tied = tuned(layer + " --samples 4");
    CHECK(tied["keep_own"] == true);
    CHECK(tied["best"]["config"] == tied["own"]["config"]);
    const json close = tuned(layer + " --samples 4 --tie 0.1");
    CHECK(close["best"]["config"] != close["own"]["config"]);
    const double d = close["difference_pct"].get<double>();
    CHECK(d > 0.1);
    CHECK(d <= close["uncertainty"]["model_error_pct"].get<double>());
    CHECK(close["keep_own"] == true);
    CHECK(close["use"]["config"] == close["own"]["config"]);
    CHECK(close["reason"].get<std::string>().find("within the model's own error") != std::string::npos);
}

TEST_CASE("tune: an NKI kernel's tune: args are its axes, the config's own value its choice") {
    const json t = tuned(kConfigs + "nki/softmax.yaml --samples 0");
    REQUIRE(t["axes"].size() == 1);
    CHECK(t["axes"][0]["key"] == "nki.args.rows_per_tile");
    CHECK(t["own"]["config"] == "rows_per_tile=128");
    // Fewer rows per tile leave partitions idle (the README's softmax sweep): 128 is the best.
    CHECK(t["use"]["config"] == "rows_per_tile=128");
    CHECK(t["screened"] == 3);
    CHECK(t["confirmed"].size() == 3);  // 128 is the kernel's choice: confirmed once
}

TEST_CASE("tune: the kernel's own choice is the kernel's even when the config fixes a memory config") {
    // The file (here --set) fixes f_tile 1024 interleave 2; the kernel's own choice is still its
    // search's 4096/7, run as the kernel makes it (memory: auto), and what the config fixes is
    // just one of the points.
    const json t = tuned(kDefault + " --samples 0 --set memory.f_tile=1024 --set memory.interleave=2");
    CHECK(t["own"]["config"] == "f_tile=4096 interleave=7 direct_x_residency=true");
    // ...at the latency `run` gives the seed config, which is that choice.
    int st = 0;
    const json run = json::parse(test::bnsim_output("run " + kDefault + " --json", &st, 600));
    REQUIRE(st == 0);
    CHECK(t["own"]["latency_ns"].get<double>() == Approx(run["latency_ns"].get<double>()).margin(10));
}

TEST_CASE("run --uncertainty: the probability that the kernel's choice is best is tune's") {
    int st = 0;
    const std::string out = test::bnsim_output("run " + kDefault + " --uncertainty --json", &st, 600);
    INFO(out);
    REQUIRE(st == 0);
    const json r = json::parse(out);
    const json t = tuned(kDefault);
    CHECK(r["uncertainty"]["choice_best_probability"] == t["choice_best_probability"]);
    CHECK(r["uncertainty"]["best_most_often"] == t["best_most_often"]);
    CHECK(r["uncertainty"]["choice_samples"] == t["uncertainty"]["samples"]);
    // A kernel that makes no decisions has none to be best about.
    const std::string cal = test::bnsim_output("run " + kCal + "m1_dma_copy.yaml --uncertainty --json", &st, 600);
    REQUIRE(st == 0);
    CHECK_FALSE(json::parse(cal)["uncertainty"].contains("choice_best_probability"));
}
