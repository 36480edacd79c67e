// bnsim sensitivity and run --uncertainty: a toy grid where a known parameter flips the best
// memory config, the suggestions that follow, the latency band's drivers, the uncertain
// parameters read from the parameter table and cost rows, and bad input.
#include <catch2/catch.hpp>

#include <cmath>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sim/config/run_config.h"
#include "sim/decision/decision_grid.h"
#include "sim/simulate/simulate.h"
#include "sim/sensitivity/uncertain_params.h"
#include "tests/cli_run.h"
#include "tests/source_paths.h"
#include "tests/test_util.h"

using namespace bnsim;
using json = nlohmann::json;

namespace {

// `bnsim run ARGS`'s JSON report; the run must succeed.
json run_report(const std::string& args) {
    int st = 0;
    const std::string out = test::bnsim_output("run " + args, &st, 600);
    INFO("bnsim run " << args);
    REQUIRE(st == 0);
    return json::parse(out);
}

const json* param_named(const json& j, const std::string& name) {
    for (const auto& p : j["params"])
        if (p["name"] == name) return &p;
    return nullptr;
}

}  // namespace

TEST_CASE("uncertain parameters: every estimate of the table and every estimated cost row, with its range") {
    const RunConfig cfg = load_run_config(kSrc + "/configs/default.yaml");
    const auto ps = uncertain_params(cfg.hw);
    size_t estimates = 0, rows = 0;
    for (const auto& [name, prov] : cfg.hw.provenance) estimates += prov.estimate;
    for (const auto& c : cfg.hw.costs) rows += c.estimate && c.uncertainty && !c.id.empty();
    CHECK(ps.size() == estimates + rows);
    bool stt = false;
    for (const auto& p : ps) {
        CHECK(p.lo <= p.value);
        CHECK(p.value <= p.hi);
        if (p.name == "costs.dve.stt.bf16.subtract_subtract.cycles_per_elem") {
            stt = true;
            CHECK(p.lo == 1.0);
            CHECK(p.hi == 2.0);
            // Set in process and through --set, the row's cycles_per_elem is the same.
            HwConfig hw = cfg.hw;
            set_uncertain(hw, p, 2.0);
            CHECK(hw.costs[size_t(p.cost_row)].cycles_per_elem == 2.0);
            const auto [key, value] = uncertain_override(p, 2.0);
            const RunConfig set = load_run_config(kSrc + "/configs/default.yaml", {{key, value}});
            CHECK(set.hw.costs[size_t(p.cost_row)].cycles_per_elem == 2.0);
        }
    }
    CHECK(stt);
    // A --range replaces a listed range and may add a parameter of the table.
    const auto r = uncertain_params(cfg.hw, {"hbm.latency_ns=100:200", "hardware.dma.engines_per_core=8:16"});
    CHECK(r.size() == ps.size() + 1);
    for (const auto& p : r)
        if (p.name == "hbm.latency_ns") CHECK((p.lo == 100 && p.hi == 200 && p.lo_why == "--range"));
    CHECK(r.back().name == "dma.engines_per_core");
    CHECK(r.back().value == 16);
}

TEST_CASE("uncertain parameters: a kernel's own estimates come last, set by reloading the config with their key") {
    // W1's transpose declares the compiler's buffer depth; the seed kernel (C++) declares none.
    const RunConfig seed = load_run_config(kSrc + "/configs/default.yaml");
    CHECK(seed.generate().estimates.empty());
    const std::string file = kSrc + "/configs/nki/transpose.yaml";
    const RunConfig cfg = load_run_config(file);
    const auto kernel = cfg.generate().estimates;
    REQUIRE(kernel.size() == 1);
    const auto ps = uncertain_params(cfg.hw, {}, kernel);
    REQUIRE(ps.size() == uncertain_params(cfg.hw).size() + 1);
    const UncertainParam& p = ps.back();
    CHECK(p.name == "nki.loop_buffers");
    CHECK(p.kernel_key);
    CHECK(p.kind == ParamKind::integer);
    CHECK(p.value == 4);
    CHECK((p.lo == 2 && p.hi == 8));
    // Not a hardware key: the pair is the kernel's, and setting the hardware leaves it alone.
    CHECK(uncertain_override(p, 6) == std::make_pair(std::string("nki.loop_buffers"), std::string("6")));
    HwConfig hw = cfg.hw;
    set_uncertain(hw, p, 6);
    for (const HwParam& h : hw_params().all()) CHECK(h.get(hw) == h.get(cfg.hw));
    // A sample's kernel pairs, in order, only the kernel keys; reloaded with them, the kernel
    // reports the new depth.
    std::vector<double> values(ps.size());
    for (size_t i = 0; i < ps.size(); ++i) values[i] = ps[i].value;
    values.back() = 6;
    const Overrides keys = kernel_overrides(ps, values);
    REQUIRE(keys.size() == 1);
    CHECK(keys[0] == uncertain_override(p, 6));
    const RunConfig six = load_run_config(file, keys);
    CHECK(std::get<int64_t>(*six.generate().summary.find("loop_buffers")) == 6);
}

TEST_CASE("sensitivity: usable SBUF at the low end of a toy range flips the best memory config") {
    // Grid f_tile {1024, 4096} at interleave 2 with residency on the seed shape. With 60000
    // bytes per partition f_tile 4096 does not fit (it needs 66016 B per partition, 58976 are
    // left after the kernel's 1024 B reserve), so f_tile 1024 wins; at the preset's 212992 B
    // f_tile 4096 wins (fewer, longer DMAs). The launch cost adds to every config alike.
    int st = 0;
    const std::string out_dir = test::make_temp_dir("bnsim_sensitivity") + "/page";
    const std::string out = test::bnsim_output("sensitivity " + kSrc + "/configs/default.yaml --json --suggest"
                                  " --axis memory.f_tile=1024,4096 --axis memory.interleave=2 --axis memory.direct_x_residency=true"
                                  " --range sbuf.usable_bytes_per_partition=60000:212992 --range launch.fixed_ns=9000:9800"
                                  " --out " + out_dir,
                                  &st, 600);
    INFO(out);
    REQUIRE(st == 0);
    const json j = json::parse(out);
    CHECK(j["grid_points"] == 2);
    CHECK(j["base"]["best_config"] == "f_tile=4096 interleave=2 direct_x_residency=true");
    const json* sbuf = param_named(j, "sbuf.usable_bytes_per_partition");
    const json* launch = param_named(j, "launch.fixed_ns");
    REQUIRE(sbuf);
    REQUIRE(launch);
    CHECK((*sbuf)["best_config_low"] == "f_tile=1024 interleave=2 direct_x_residency=true");
    CHECK((*sbuf)["best_config_high"] == "f_tile=4096 interleave=2 direct_x_residency=true");
    // The launch cost moves every config alike: latency by exactly its range, the ranking not at all.
    CHECK((*launch)["moves_decision"] == false);
    CHECK((*launch)["best_config_low"] == j["base"]["best_config"]);
    CHECK((*launch)["best_config_high"] == j["base"]["best_config"]);
    CHECK((*launch)["latency_high_ns"].get<double>() - (*launch)["latency_low_ns"].get<double>() == Approx(800));
    CHECK((*launch)["moves_latency"] == false);  // 800 ns of ~577 us
    for (const char* k : {"name", "low", "high", "latency_low_ns", "latency_high_ns", "best_config_low", "best_config_high"})
        CHECK((*sbuf).contains(k));

    // The tornado chart (sim/report/charts.js "ranges"): one bar per parameter spanning the
    // latencies over its range, in us, around the base latency; a decision-moving one in red.
    const auto specs = test::chart_specs(test::slurp(out_dir + "/sensitivity.html"));
    REQUIRE(specs.size() == 1);
    const auto& t = specs[0];
    CHECK(t["kind"] == "ranges");
    CHECK(t["x"]["title"] == "latency (\u00b5s)");
    const double base_us = j["base"]["latency_ns"].get<double>() / 1000;
    CHECK(t["base"]["value"] == Approx(base_us));
    const json* launch_bar = nullptr;
    const json* sbuf_bar = nullptr;
    for (const auto& b : t["bars"]) {
        CHECK(b["low"].get<double>() <= base_us + 1e-9);
        CHECK(b["high"].get<double>() >= base_us - 1e-9);
        if (b["label"] == "launch.fixed_ns") launch_bar = &b;
        if (b["label"] == "sbuf.usable_bytes_per_partition (decision)") sbuf_bar = &b;
    }
    REQUIRE(launch_bar);
    REQUIRE(sbuf_bar);
    CHECK((*launch_bar)["high"].get<double>() - (*launch_bar)["low"].get<double>() == Approx(0.8));  // 800 ns
    CHECK((*launch_bar)["colour"] == "#9ecae1");  // moves neither the latency (over 2%) nor the decision
    CHECK((*launch_bar)["high_text"].get<std::string>().rfind("9800 ns: +0.1", 0) == 0);  // 800 ns of ~577 us
    CHECK((*sbuf_bar)["colour"] == "#d62728");
    if (test::has_chromium())
        CHECK(test::charts_drawn_in_chromium(out_dir + "/sensitivity.html", out_dir + "/chromium") ==
              "data-charts=\"1\" data-chart-errors=\"\"");
}

TEST_CASE("sensitivity: each case's best configs are the minima of every grid config's estimate") {
    // The ranking leaves out configs whose lower bound or partial estimate is already above the
    // bests they could change; what it reports must be what estimating all 96 gives. Here every
    // config of the seed shape's grid is estimated (f_tile 128 to 4096: traces of 390 to 12k
    // instructions), at the preset and at both ends of the DMA trigger's range.
    int st = 0;
    const std::string out = test::bnsim_output("sensitivity " + kSrc + "/configs/default.yaml --json --range dma.trigger_cycles=64:352",
                                               &st, 600);
    REQUIRE(st == 0);
    const json j = json::parse(out);
    const json* trigger = param_named(j, "dma.trigger_cycles");
    REQUIRE(trigger);
    const std::string path = kSrc + "/configs/default.yaml";
    const auto grid = grid_points(decision_axes_of(load_run_config(path)), 1000, "grid");
    REQUIRE(grid.size() == 96);
    struct Case {
        const char* set;
        json best_config, best_ns, saves_ns;
    };
    std::vector<Case> cases{{"", j["base"]["best_config"], j["base"]["best_estimate_ns"], j["base"]["saves_ns"]},
                            {"hardware.dma.trigger_cycles=64", (*trigger)["best_config_low"], nullptr, (*trigger)["saves_low_ns"]},
                            {"hardware.dma.trigger_cycles=352", (*trigger)["best_config_high"], nullptr, (*trigger)["saves_high_ns"]}};
    std::vector<std::optional<GeneratedKernel>> kernels(grid.size());
    for (size_t g = 0; g < grid.size(); ++g) {
        try {
            kernels[g] = load_run_config(path, grid[g].sets).generate();
        } catch (const KernelError&) {
        }
    }
    for (const Case& c : cases) {
        INFO(c.set);
        double best = 0, best_on = 0, best_off = 0;
        int best_g = -1;
        for (size_t g = 0; g < grid.size(); ++g) {
            if (!kernels[g]) continue;
            Overrides sets = grid[g].sets;
            if (*c.set) sets.push_back({std::string(c.set).substr(0, std::string(c.set).find('=')),
                                        std::string(c.set).substr(std::string(c.set).find('=') + 1)});
            const HwConfig hw = load_run_config(path, sets).hw;
            const double est = estimate_latency_ns(hw, kernels[g]->trace, Dependents(kernels[g]->trace));
            if (best_g < 0 || est < best) {
                best = est;
                best_g = int(g);
            }
            double& half = grid[g].values.at("memory.direct_x_residency") == "true" ? best_on : best_off;
            if (half == 0 || est < half) half = est;
        }
        REQUIRE(best_g >= 0);
        CHECK(c.best_config == grid[size_t(best_g)].label);
        if (!c.best_ns.is_null()) CHECK(c.best_ns.get<double>() == Approx(best).margin(0.0005));  // printed to 3 decimals
        CHECK(c.saves_ns["memory.direct_x_residency"].get<double>() == Approx(best_off - best_on).margin(0.001));
    }
}

TEST_CASE("sensitivity: a range end at the preset's value is the base run, not a second one") {
    // launch.fixed_ns is 9400 ns in the preset. With the range 9400:9800 its low end is the
    // preset itself: one simulation and one ranking (grid + 1 estimates) fewer than with 9300:9800,
    // whose ends and interior points are all new, and its low-end latency is the base's exactly.
    auto run = [](const std::string& range) {
        int st = 0;
        const std::string out = test::bnsim_output("sensitivity " + kSrc + "/configs/default.yaml --json"
                                                   " --axis memory.f_tile=1024,4096 --axis memory.interleave=2"
                                                   " --axis memory.direct_x_residency=true --range launch.fixed_ns=" + range,
                                                   &st, 600);
        INFO(out);
        REQUIRE(st == 0);
        return json::parse(out);
    };
    const json at = run("9400:9800"), off = run("9300:9800");
    CHECK(off["simulations"].get<int>() - at["simulations"].get<int>() == 1);
    CHECK(off["estimates"].get<int>() - at["estimates"].get<int>() == 3);  // 2 grid points + the choice
    const json* launch = param_named(at, "launch.fixed_ns");
    REQUIRE(launch);
    CHECK((*launch)["latency_low_ns"] == at["base"]["latency_ns"]);
    CHECK((*launch)["best_config_low"] == at["base"]["best_config"]);
    const json* moved = param_named(off, "launch.fixed_ns");
    REQUIRE(moved);
    CHECK((*moved)["latency_low_ns"].get<double>() == Approx(at["base"]["latency_ns"].get<double>() - 100));
}

TEST_CASE("sensitivity: the seed shape's DVE cost row range makes phase 2 DVE-bound at its high end") {
    // A two-config grid (residency on and off at the kernel's own f_tile and interleave) keeps it
    // quick; the check is on the subtract->subtract row: 1 cycle/elem is the preset's value, 2 the
    // full-cycle reading of the cost notes.
    int st = 0;
    const std::string out = test::bnsim_output("sensitivity " + kSrc + "/configs/default.yaml --json"
                                  " --axis memory.f_tile=4096 --axis memory.interleave=7 --axis memory.direct_x_residency=true,false",
                                  &st, 600);
    INFO(out);
    REQUIRE(st == 0);
    const json j = json::parse(out);
    const json* stt = param_named(j, "costs.dve.stt.bf16.subtract_subtract.cycles_per_elem");
    REQUIRE(stt);
    CHECK((*stt)["latency_low_ns"].get<double>() == Approx(j["base"]["latency_ns"].get<double>()));
    CHECK((*stt)["change_high_pct"].get<double>() > 2);
    CHECK((*stt)["moves_latency"] == true);
    CHECK((*stt)["binding_high"].get<std::string>().find("phase 2 dve") != std::string::npos);
    CHECK(j["base"]["binding"].get<std::string>().find("phase 2 dma") != std::string::npos);
    // Sorted by the larger change.
    double last = 1e300;
    for (const auto& p : j["params"]) {
        CHECK(p["max_change_pct"].get<double>() <= last);
        last = p["max_change_pct"].get<double>();
    }
    // Samples across each range, not just its ends: at least 5 for a real or integer parameter
    // (2 for a flag), in order, the ends being the low/high runs; the largest move is the largest
    // of them, and where it is; the cost row's latency rises in equal steps (it prices linearly).
    const double L = j["base"]["latency_ns"].get<double>();
    for (const auto& p : j["params"]) {
        INFO(p["name"]);
        const json& sm = p["samples"];
        const bool flag = p["name"] == "dma.merge_contiguous_rows" || p["name"] == "dma.dge_bound_to_issuer";
        CHECK(sm.size() >= (flag ? 2u : 5u));
        CHECK(sm.front()["value"] == p["low"]);
        CHECK(sm.back()["value"] == p["high"]);
        CHECK(sm.front()["latency_ns"] == p["latency_low_ns"]);
        CHECK(sm.back()["latency_ns"] == p["latency_high_ns"]);
        double m = 0, at = 0;
        for (size_t k = 0; k < sm.size(); ++k) {
            if (k) CHECK(sm[k]["value"].get<double>() > sm[k - 1]["value"].get<double>());
            const double c = std::fabs(sm[k]["latency_ns"].get<double>() - L) / L * 100;
            if (c > m + 0.005) m = c, at = sm[k]["value"].get<double>();
        }
        CHECK(p["max_change_pct"].get<double>() == Approx(m).margin(0.01));
        if (m > 0.1) {  // (below, rounding to 0.01% makes near-ties)
            CHECK(p["max_change_at"].get<double>() == at);
            CHECK(p["max_change_inside"] == (at != p["low"].get<double>() && at != p["high"].get<double>()));
        }
    }
    const json& row = (*stt)["samples"];
    REQUIRE(row.size() == 5);
    const double step = row[1]["latency_ns"].get<double>() - row[0]["latency_ns"].get<double>();
    CHECK(step > 0);
    for (size_t k = 2; k < row.size(); ++k)
        CHECK(row[k]["latency_ns"].get<double>() - row[k - 1]["latency_ns"].get<double>() == Approx(step).epsilon(0.02));
}

TEST_CASE("run --uncertainty: the band spans the declared range ends and names each end's driver") {
    int st = 0;
    const std::string cfg = kSrc + "/configs/calibration/m4_vector_add_free2.yaml";
    const json base = run_report(cfg + " --json --set vector_add.free=200");
    const json j = run_report(cfg + " --json --uncertainty --set vector_add.free=200");
    const json& b = j["uncertainty"];
    CHECK(b["latency_ns"].get<double>() == base["latency_ns"].get<double>());
    double lo = b["latency_ns"].get<double>(), hi = lo;
    for (const auto& p : b["params"]) {
        lo = std::min({lo, p["latency_low_ns"].get<double>(), p["latency_high_ns"].get<double>()});
        hi = std::max({hi, p["latency_low_ns"].get<double>(), p["latency_high_ns"].get<double>()});
    }
    CHECK(b["low_ns"].get<double>() == lo);
    CHECK(b["high_ns"].get<double>() == hi);
    CHECK(lo < b["latency_ns"].get<double>());  // launch.fixed_ns alone spans 8.5..11.2 us
    CHECK(hi > b["latency_ns"].get<double>());
    CHECK(b["high_driver"].is_object());
    CHECK(b["low_driver"].is_object());
    // The joint band: all estimated parameters at once. Ordered percentiles inside the confirmed
    // extremes, widened by the model's own error, and the variance ranked: at FREE_DIM 200 the
    // launch cost (8.5-11.2 us of a 13.3 us kernel) is most of it.
    for (const char* k : {"p5_ns", "p50_ns", "p95_ns", "min_ns", "max_ns", "widened_p5_ns", "widened_p95_ns"}) {
        INFO(k);
        REQUIRE(b[k].is_number());
    }
    CHECK(b["min_ns"].get<double>() <= b["p5_ns"].get<double>());
    CHECK(b["p5_ns"].get<double>() <= b["p50_ns"].get<double>());
    CHECK(b["p50_ns"].get<double>() <= b["p95_ns"].get<double>());
    CHECK(b["p95_ns"].get<double>() <= b["max_ns"].get<double>());
    CHECK(b["p5_ns"].get<double>() < b["p95_ns"].get<double>());
    // Widened by the model's own error around the sample's 90% and the nominal latency both.
    const double nominal = b["latency_ns"].get<double>(), e = b["model_error_pct"].get<double>() / 100;
    CHECK(b["widened_p5_ns"].get<double>() == Approx(std::min(b["p5_ns"].get<double>(), nominal) * (1 - e)));
    CHECK(b["widened_p95_ns"].get<double>() == Approx(std::max(b["p95_ns"].get<double>(), nominal) * (1 + e)));
    REQUIRE(b["min_confirmed_ns"].is_number());
    REQUIRE(b["max_confirmed_ns"].is_number());
    CHECK(b["min_confirmed_ns"].get<double>() >= b["min_ns"].get<double>());
    CHECK(b["max_confirmed_ns"].get<double>() <= b["max_ns"].get<double>());
    CHECK(b["joint_samples"] == 64);
    double shares = 0, prev = 1;
    for (const auto& r : b["ranking"]) {
        CHECK(r["share"].get<double>() <= prev);
        prev = r["share"].get<double>();
        shares += prev;
    }
    CHECK(shares == Approx(1.0));
    CHECK(b["ranking"][0]["name"] == "launch.fixed_ns");
    CHECK(b["ranking"][0]["share"].get<double>() > 0.5);
    const std::string text = test::bnsim_output("run " + cfg + " --uncertainty --set vector_add.free=200", &st, 600);
    CHECK(st == 0);
    CHECK(text.find("band ") != std::string::npos);
    CHECK(text.find("joint band  p50 ") != std::string::npos);
    CHECK(text.find("most of it: launch.fixed_ns") != std::string::npos);
}

TEST_CASE("run --uncertainty on an NKI kernel varies the compiler's buffer depth, each end a run at that depth") {
    // W1's transpose allocates its three tiles in an affine_range body: nki.loop_buffers (an
    // estimate, 2-8) is one of the band's parameters, its ends the kernel traced again at 2 and
    // 8 buffers, exactly what --set gives. Its tiles are never renamed, so rename_copies is not.
    const std::string cfg = kSrc + "/configs/nki/transpose.yaml";
    const json j = run_report(cfg + " --json --uncertainty");
    const json& b = j["uncertainty"];
    const json* depth = nullptr;
    for (const auto& p : b["params"]) {
        CHECK(p["name"] != "nki.rename_copies");
        if (p["name"] == "nki.loop_buffers") depth = &p;
    }
    REQUIRE(depth);
    CHECK((*depth)["low"] == 2);
    CHECK((*depth)["high"] == 8);
    for (const auto& [end, n] : {std::pair<const char*, int>{"latency_low_ns", 2}, {"latency_high_ns", 8}}) {
        const json r = run_report(cfg + " --json --set nki.loop_buffers=" + std::to_string(n));
        CHECK((*depth)[end].get<double>() == r["latency_ns"].get<double>());
    }
    // Fewer buffers serialize the iterations: the high end of the band is the depth's low end.
    CHECK(b["high_driver"]["name"] == "nki.loop_buffers");
    CHECK(b["high_driver"]["value"] == 2);
    bool ranked = false;
    for (const auto& r : b["ranking"]) ranked = ranked || r["name"] == "nki.loop_buffers";
    CHECK(ranked);
}

TEST_CASE("run --uncertainty --as-profile: the band of the kernel plus the profile window, each end with its own window") {
    // A profile's total_time is the kernel plus launch.profile_window_ns: the benchmark launch
    // (launch.fixed_ns) moves none of it, the window's ends move it by exactly their distance.
    int st = 0;
    const std::string cfg = kSrc + "/configs/nki/vector_add_256k.yaml";
    const json plain = run_report(cfg + " --json");
    const json j = run_report(cfg + " --json --uncertainty --as-profile");
    const json& b = j["uncertainty"];
    CHECK(b["of"] == "profile_total_time");
    CHECK(j["latency_ns"] == plain["latency_ns"]);  // the headline stays the benchmark's
    const double kernel = plain["kernel_ns"].get<double>();
    const json* launch = param_named(b, "launch.fixed_ns");
    const json* window = param_named(b, "launch.profile_window_ns");
    REQUIRE(launch);
    REQUIRE(window);
    const double centre = b["latency_ns"].get<double>();
    CHECK(centre == Approx(kernel + 14860).epsilon(1e-12));  // configs/hw/trn2.yaml's window
    CHECK((*launch)["latency_low_ns"].get<double>() == Approx(centre).epsilon(1e-12));
    CHECK((*launch)["latency_high_ns"].get<double>() == Approx(centre).epsilon(1e-12));
    CHECK((*window)["latency_low_ns"].get<double>() == Approx(kernel + (*window)["low"].get<double>()).epsilon(1e-12));
    CHECK((*window)["latency_high_ns"].get<double>() == Approx(kernel + (*window)["high"].get<double>()).epsilon(1e-12));
    // Without --uncertainty there is no band to frame: a usage error.
    test::bnsim_output("run " + cfg + " --as-profile", &st, 60);
    CHECK(st == 2);
}

TEST_CASE("run --estimate --uncertainty: the band's ends are estimates too, like its centre") {
    int st = 0;
    const std::string cfg = kSrc + "/configs/calibration/m4_vector_add_free2.yaml";
    const json j = json::parse(test::bnsim_output("run " + cfg + " --json --estimate --uncertainty --set vector_add.free=200", &st, 600));
    REQUIRE(st == 0);
    const json& b = j["uncertainty"];
    CHECK(b["latency_ns"].get<double>() == j["latency_ns"].get<double>());
    // Each end is what `run --estimate` gives with that parameter at that end (not a full simulation).
    const json* launch = param_named(b, "launch.fixed_ns");
    REQUIRE(launch);
    for (const char* end : {"low", "high"}) {
        const double v = (*launch)[end].get<double>();
        std::ostringstream set;
        set.precision(17);
        set << " --set hardware.launch.fixed_ns=" << v;
        const json e = json::parse(test::bnsim_output("run " + cfg + " --json --estimate --set vector_add.free=200" + set.str(), &st, 600));
        REQUIRE(st == 0);
        CHECK((*launch)[std::string("latency_") + end + "_ns"].get<double>() == e["latency_ns"].get<double>());
    }
    CHECK(b["method"].get<std::string>().find("screening estimate") != std::string::npos);
}

TEST_CASE("sensitivity: bad ranges, axes and configs exit 2 with one clear line") {
    int st = 0;
    const std::string cfg = kSrc + "/configs/default.yaml";
    std::string out = test::bnsim_output("sensitivity " + cfg + " --range hbm.latency_ns=abc", &st, 600);
    CHECK(st == 2);
    CHECK(out.find("--range hbm.latency_ns=abc: expected NAME=LO:HI") != std::string::npos);
    out = test::bnsim_output("sensitivity " + cfg + " --range no.such_param=1:2", &st, 600);
    CHECK(st == 2);
    CHECK(out.find("no.such_param") != std::string::npos);
    out = test::bnsim_output("sensitivity " + cfg + " --range hbm.latency_ns=5:1", &st, 600);
    CHECK(st == 2);
    CHECK(out.find("low end exceeds") != std::string::npos);
    out = test::bnsim_output("sensitivity " + cfg + " --axis memory.f_tile", &st, 600);
    CHECK(st == 2);
    CHECK(out.find("expected KEY=V1,V2") != std::string::npos);
    out = test::bnsim_output("sensitivity " + cfg + " --axis memory.interleave=99", &st, 600);
    CHECK(st == 2);
    CHECK(out.find("interleave") != std::string::npos);
    // A memory config that does not fit on the preset is bad input too, reported once.
    out = test::bnsim_output("sensitivity " + cfg + " --set memory.f_tile=4096 --set memory.interleave=8", &st, 600);
    CHECK(st == 2);
    CHECK(out.find("does not fit") != std::string::npos);
    CHECK(out.find("simulating") == std::string::npos);
    out = test::bnsim_output("sensitivity /no/such/config.yaml", &st, 600);
    CHECK(st == 2);
    out = test::bnsim_output("run " + cfg + " --set hardware.costs.no_such_row.cycles_per_elem=2", &st, 600);
    CHECK(st == 2);
    CHECK(out.find("no_such_row") != std::string::npos);
}
