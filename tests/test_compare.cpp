// bnsim compare: the statistics by hand, the point and profile comparisons, the profiler-table
// round trip of a simulated run, and the command on the public M4 runs.
#include <catch2/catch.hpp>

#include "tests/cli_run.h"
#include "tests/test_util.h"

#include <filesystem>
#include <fstream>

#include "sim/output/output_file.h"
#include "sim/compare/compare.h"
#include "sim/compare/stats.h"
#include "sim/config/run_config.h"
#include "sim/measured/profile.h"
#include "sim/report/phase_window.h"
#include "sim/measured/profile_report.h"
#include "sim/simulate/simulate.h"
#include "tests/source_paths.h"

using namespace bnsim;
using json = nlohmann::json;

namespace {

// bnsim's standard output then its standard error, and its exit status.
std::string compare_dir(const std::string& name) { return test::make_temp_dir(("bnsim_test_compare_" + name).c_str()); }

}  // namespace

TEST_CASE("Spearman: hand-worked examples with and without ties") {
    // No ties: 1 - 6 sum d^2 / (n (n^2 - 1)); ranks of b are 1 3 2 4, d^2 sums to 2: 1 - 12/60.
    CHECK(*spearman({10, 20, 30, 40}, {1, 3, 2, 4}) == Approx(0.8));
    // Ties: b = 5 6 7 8 7 ranks 1 2 3.5 5 3.5; deviations from 3: -2 -1 .5 2 .5 against -2 -1 0 1 2;
    // sum of products 8, sums of squares 10 and 9.5: 8 / sqrt(95).
    CHECK(*spearman({1, 2, 3, 4, 5}, {5, 6, 7, 8, 7}) == Approx(8.0 / std::sqrt(95.0)));
    CHECK(average_ranks({5, 6, 7, 8, 7}) == std::vector<double>{1, 2, 3.5, 5, 3.5});
    CHECK(*spearman({1, 2, 3}, {30, 20, 10}) == Approx(-1.0));
    CHECK_FALSE(spearman({1}, {2}).has_value());
    CHECK_FALSE(spearman({1, 2, 3}, {4, 4, 4}).has_value());  // constant side: undefined
}

TEST_CASE("compare_points: errors, MAPE, max error and best-config agreement by hand") {
    MeasuredSet set;
    set.file = "m.csv";
    set.format = "runs_csv";
    for (auto [id, m] : std::vector<std::pair<std::string, double>>{{"a", 100}, {"b", 200}, {"c", 400}}) {
        MeasuredPoint p;
        p.id = id;
        p.measured = m * 1000;
        set.points.push_back(p);
    }
    std::vector<Prediction> pred(3);
    for (auto& p : pred) p.ok = true;
    pred[0].value = 110000;  // +10%
    pred[1].value = 190000;  // -5%
    pred[2].value = 100000;  // -75%: now predicted best, measured best is a
    const json j = json::parse(to_json(compare_points(set, pred)).dump());  // the report's JSON
    CHECK(j["points"][0]["error_pct"].get<double>() == Approx(10));
    CHECK(j["points"][1]["error_pct"].get<double>() == Approx(-5));
    CHECK(j["points"][0]["measured_us"].get<double>() == Approx(100));
    CHECK(j["points"][0]["predicted_us"].get<double>() == Approx(110));
    CHECK(j["mape_pct"].get<double>() == Approx(30));
    CHECK(j["max_error_pct"].get<double>() == Approx(-75));
    CHECK(j["max_error_point"] == "c");
    CHECK(j["spearman"].get<double>() == Approx(-0.5));  // ranks 1 2 3 against 2 3 1
    CHECK(j["measured_best"] == "a");
    CHECK(j["predicted_best"] == "c");
    CHECK(j["best_config_agrees"] == false);
}

TEST_CASE("compare_profiles: per-engine busy, phases and per-opcode distributions") {
    Profile m, p;
    m.file = "m";
    m.summary["total_time"] = "1e-05";
    m.summary["vector_engine_active_time"] = "4e-06";
    p.summary["total_time"] = "1.1e-05";
    for (double d : {100.0, 200.0, 300.0}) m.instructions.push_back({0, d, d, "Vector", "TENSOR_TENSOR", "k:phase1.x"});
    for (double d : {150.0, 150.0}) p.instructions.push_back({1000, 1000 + d, d, "dve", "tensor_tensor", "k:phase1.x"});
    const json j = json::parse(to_json(compare_profiles(m, p)).dump());
    CHECK(j["total_time"]["measured_ns"].get<double>() == Approx(10000));
    CHECK(j["total_time"]["error_pct"].get<double>() == Approx(10));
    CHECK(j["engines"][1]["engine"] == "vector");
    CHECK(j["engines"][1]["measured_ns"].get<double>() == Approx(4000));  // from the summary
    CHECK(j["engines"][1]["predicted_ns"].get<double>() == Approx(300));   // summed instruction durations
    REQUIRE(j["phases"].size() == 1);
    CHECK(j["phases"][0]["phase"] == "k:phase1");
    CHECK(j["phases"][0]["measured_ns"].get<double>() == Approx(300));
    CHECK(j["phases"][0]["predicted_ns"].get<double>() == Approx(150));
    REQUIRE(j["opcodes"].size() == 1);
    CHECK(j["opcodes"][0]["measured"]["count"] == 3);
    CHECK(j["opcodes"][0]["measured"]["mean_ns"].get<double>() == Approx(200));
    CHECK(j["opcodes"][0]["measured"]["p90_ns"].get<double>() == Approx(280));
    CHECK(j["opcodes"][0]["mean_error_pct"].get<double>() == Approx(-25));
}

TEST_CASE("phase windows: each from when the phase leads to its last end, by hand") {
    PhaseWindows w;
    w.add(1, 0, 100);
    w.add(1, 10, 300);
    w.add(2, 50, 80);    // prefetched under phase 1
    w.add(2, 200, 500);
    w.add(3, 20, 40);    // wholly under phase 1: a window of no length at its own end
    w.add(4, 600, 700);  // after a gap
    const auto v = w.windows();
    REQUIRE(v.size() == 4);
    CHECK(v[0].start_ns == 0);
    CHECK(v[0].end_ns == 300);
    CHECK(v[1].first_start_ns == 50);
    CHECK(v[1].start_ns == 300);
    CHECK(v[1].duration_ns() == 200);
    CHECK(v[2].start_ns == 40);
    CHECK(v[2].duration_ns() == 0);
    CHECK(v[3].start_ns == 600);  // leads from its own first start: earlier phases ended at 500
    CHECK(v[3].duration_ns() == 100);
}

TEST_CASE("compare_profiles: phases windowed alike, with transfers only when both sides name them") {
    Profile m, p;
    for (Profile* x : {&m, &p}) {
        x->instructions.push_back({0, 100, 100, "dve", "tensor_tensor", "k:phase1.a"});
        x->instructions.push_back({120, 130, 10, "sync", "dma_copy", "k:phase2.store"});
        x->dma_packets.push_back({130, 400, 0, "q0", 64, "k:phase2.store"});
    }
    ProfileComparison c = compare_profiles(m, p);
    CHECK(c.phase_windows_include == "instructions and DMA transfers");
    REQUIRE(c.phases.size() == 2);
    CHECK(c.phases[1].name == "k:phase2");
    CHECK(c.phases[1].measured_ns == Approx(280));  // 120 -> 400: from its first start (phase 1 ended at 100) to its data's arrival
    m.dma_packets[0].nki_source_location.clear();  // as neuron-profile writes them
    c = compare_profiles(m, p);
    CHECK(c.phase_windows_include == "instructions only");
    CHECK(c.phases[1].measured_ns == Approx(10));  // 120 -> 130 on both sides: the trigger only
    CHECK(c.phases[1].predicted_ns == Approx(10));
}

TEST_CASE("bnsim run and compare of its own profile give the same phase windows on the seed shape") {
    int st = 0;
    const auto dir = compare_dir("windows");
    const json run = json::parse(test::bnsim_output("run " + kSrc + "/configs/default.yaml --json --profile-out " + dir, &st));
    REQUIRE(st == 0);
    const json cmp = json::parse(test::bnsim_output("compare " + dir + " --against " + kSrc + "/configs/default.yaml --json", &st));
    REQUIRE(st == 0);
    const json& phases = cmp["profile"]["phases"];
    REQUIRE(phases.size() == run["phases"].size());
    REQUIRE(phases.size() == 2);
    double sum = 0;
    for (size_t i = 0; i < phases.size(); ++i) {
        CHECK(phases[i]["measured_ns"].get<double>() == Approx(run["phases"][i]["duration_ns"].get<double>()).margin(1e-3));
        sum += run["phases"][i]["duration_ns"].get<double>();
    }
    // The windows tile the kernel: they sum to its time less the last DMA's completion latency.
    CHECK(sum <= run["kernel_ns"].get<double>());
    CHECK(sum >= 0.99 * run["kernel_ns"].get<double>());
}

TEST_CASE("profile tables: a simulated run reads back through the importers unchanged") {
    const RunConfig cfg = load_run_config(kSrc + "/configs/default.yaml");
    const GeneratedKernel k = cfg.generate();
    SimOptions so;
    so.policy = cfg.schedule;
    const SimResult r = simulate(cfg.hw, k.trace, so);
    const Profile p = simulated_profile(cfg, k, r);
    REQUIRE(p.instructions.size() == k.trace.size());
    for (const auto& in : p.instructions) CHECK(std::string(in.nki_source_location).rfind("batch_norm_bwd:phase", 0) == 0);
    CHECK(p.is_simulation());
    CHECK(*p.number("total_time") == Approx(r.kernel_ns * 1e-9));

    const std::string dir = compare_dir("roundtrip");
    write_profile_dir(p, OutputDir("--profile-out", dir));
    const Profile back = read_profile(dir);  // the CSV tables
    CHECK(back.is_simulation());
    CHECK(back.summary == p.summary);
    CHECK(back.metadata == p.metadata);
    CHECK(back.instructions == p.instructions);
    CHECK(back.dma_packets == p.dma_packets);
    const Profile js = read_profile(dir + "/profile.json");  // the JSON form
    CHECK(js.summary == p.summary);
    CHECK(js.metadata == p.metadata);
    CHECK(js.instructions == p.instructions);
    CHECK(js.dma_packets == p.dma_packets);
}

TEST_CASE("bnsim compare on the public M4 vector-add runs prints the error table") {
    int st = 0;
    const std::string out = test::bnsim_output("compare " + kSrc + "/configs/measured/m4_vector_add.csv", &st);
    INFO(out);
    CHECK(st == 0);
    CHECK(out.find("M4.free2") != std::string::npos);
    CHECK(out.find("186.00 us") != std::string::npos);
    CHECK(out.find("MAPE") != std::string::npos);
    CHECK(out.find("Spearman 1.000") != std::string::npos);
    CHECK(out.find("(agrees)") != std::string::npos);

    const std::string js = test::bnsim_output("compare " + kSrc + "/configs/measured/m4_vector_add_latency.txt --json", &st);
    CHECK(st == 0);
    const json j = json::parse(js);
    REQUIRE(j["points"].size() == 2);
    for (const auto& p : j["points"]) {
        CHECK(p.contains("measured_us"));
        CHECK(p.contains("predicted_us"));
        CHECK(p.contains("error_pct"));
    }
    CHECK(j.contains("mape_pct"));
    CHECK(j.contains("max_error_pct"));
    CHECK(j["spearman"].get<double>() == Approx(1.0));
    CHECK(j["best_config_agrees"] == true);
}

TEST_CASE("bnsim compare: bad input exits 2 naming file and line, a failed tolerance exits 1") {
    int st = 0;
    const auto dir = compare_dir("cli");
    std::filesystem::create_directories(dir);
    const std::string bad = dir + "/bad.csv";
    std::ofstream(bad) << "vector_add.free,latency_us\n2,abc\n";
    std::string out = test::bnsim_output("compare " + bad, &st);
    CHECK(st == 2);
    CHECK(out.find(bad + ":2: field 'latency_us': expected a number, got 'abc'") != std::string::npos);

    const std::string badkey = dir + "/badkey.csv";
    std::ofstream(badkey) << "config,vector_add.fre,latency_us\n" << kSrc << "/configs/calibration/m4_vector_add_free2.yaml,2,186\n";
    out = test::bnsim_output("compare " + badkey, &st);
    CHECK(st == 2);
    CHECK(out.find(badkey + ":2:") != std::string::npos);
    CHECK(out.find("vector_add.fre") != std::string::npos);

    out = test::bnsim_output("compare " + kSrc + "/configs/measured/m4_vector_add.csv --tolerance 2", &st);
    CHECK(st == 1);  // M4.free2 is about +2.4% off
    out = test::bnsim_output("compare " + kSrc + "/configs/measured/m4_vector_add.csv --tolerance 50 --out " + dir + "/html", &st);
    CHECK(st == 0);
    const std::string html = test::slurp(dir + "/html/compare.html");
    // Charts (sim/report/charts.js): a scatter of the two latency rows in us, the band at the
    // --tolerance, and the predicted busy time per engine; nothing fetched when the page opens.
    const auto specs = test::chart_specs(html);
    REQUIRE(specs.size() == 2);
    const auto& sc = specs[0];
    CHECK(sc["kind"] == "scatter");
    CHECK(sc["x"]["title"] == "measured (\u00b5s)");
    CHECK(sc["y"]["title"] == "predicted (\u00b5s)");
    CHECK(sc["band_pct"] == 50);
    REQUIRE(sc["series"].size() == 1);  // one metric, one unit
    CHECK(sc["series"][0]["label"] == "latency_ns");
    REQUIRE(sc["series"][0]["points"].size() == 2);
    CHECK(sc["series"][0]["points"][0]["x"] == Approx(186));  // M4.free2: 186 us measured
    CHECK(sc["series"][0]["points"][1]["x"] == Approx(15));
    CHECK(specs[1]["kind"] == "bars");
    CHECK(specs[1]["y"]["title"] == "busy time (\u00b5s)");
    CHECK(specs[1]["series"].size() == 2);  // one bar per point
    CHECK(html.find("src=\"http") == std::string::npos);
    CHECK(html.find("<svg") == std::string::npos);
    if (test::has_chromium())
        CHECK(test::charts_drawn_in_chromium(dir + "/html/compare.html", dir + "/chromium") ==
              "data-charts=\"2\" data-chart-errors=\"\"");
}

TEST_CASE("bnsim compare: a profile against the simulation of its config, per engine and opcode") {
    int st = 0;
    const auto dir = compare_dir("profile");
    std::string out = test::bnsim_output("run " + kSrc + "/configs/calibration/m4_vector_add_free2.yaml --set vector_add.free=200 --profile-out " + dir, &st);
    REQUIRE(st == 0);
    // The simulated run's own tables against the same config: every figure agrees.
    out = test::bnsim_output("compare " + dir + " --against " + kSrc + "/configs/calibration/m4_vector_add_free2.yaml --set vector_add.free=200 --json", &st);
    INFO(out);
    REQUIRE(st == 0);
    const json j = json::parse(out)["profile"];
    CHECK(j["measured_is_simulation"] == true);
    CHECK(j["total_time"]["error_pct"].get<double>() == Approx(0));
    for (const auto& e : j["engines"])
        if (!e["error_pct"].is_null()) CHECK(e["error_pct"].get<double>() == Approx(0));
    for (const auto& o : j["opcodes"]) CHECK(o["mean_error_pct"].get<double>() == Approx(0));
    // A real-format capture (synthetic values): text table with engines.
    out = test::bnsim_output("compare " + kSrc + "/tests/data/profiles/explorer --against " + kSrc + "/configs/calibration/m4_vector_add_free2.yaml --set vector_add.free=200", &st);
    CHECK(st == 0);
    CHECK(out.find("vector busy") != std::string::npos);
    CHECK(out.find("vector tensor_tensor") != std::string::npos);
}

TEST_CASE("bnsim compare reads the calibration data set with each row's own set keys, as calibrate does") {
    // Every row of configs/calibration/ is within calibrate's 15% tolerance (bnsim calibrate
    // checks it); compare must predict the same figures, so it passes the same tolerance. The
    // M8 rows share a config and differ only in their `set:` width.
    int st = 0;
    const std::string data = kSrc + "/configs/calibration/measurements.yaml";
    const std::string out = test::bnsim_output("compare " + data + " --json --tolerance 15", &st);
    INFO(out);
    CHECK(st == 0);
    const json j = json::parse(out);
    CHECK(j["points"].size() == 108);  // 98 per-instruction rows; M4's two, W1's five, V1's two and W2's whole-kernel rows
    // Each kernel measured at several configs is ranked as measured: M4 at FREE_DIM 2 and 200.
    // M4 at FREE_DIM 2 and 200, V1 at FREE_DIM 1000 and 2000 (its two iterations overlap, so 1000
    // is the faster on trn2 and in bnsim).
    REQUIRE(j["kernels"].size() == 2);
    for (size_t k = 0; k < 2; ++k) {
        CHECK(j["kernels"][k]["kernel"] == (k == 0 ? "M4" : "V1"));
        CHECK(j["kernels"][k]["points"] == 2);
        CHECK(j["kernels"][k]["spearman"] == 1.0);
        CHECK(j["kernels"][k]["same_order"] == true);
    }
    const json* w2 = nullptr;
    for (const auto& p : j["points"])
        if (p["id"] == "M8.dve.reduce_add.psum_f32.w2") w2 = &p;
    REQUIRE(w2);
    CHECK(std::fabs((*w2)["error_pct"].get<double>()) < 15);
}

TEST_CASE("bnsim compare says when a kernel's configs are predicted in another order than measured") {
    // M4's two configs measured the wrong way round (FREE_DIM 200 slower): bnsim predicts
    // 190 us and 15 us, so the order is reversed and Spearman is -1.
    int st = 0;
    const auto dir = compare_dir("order");
    std::filesystem::create_directories(dir);
    const std::string f = dir + "/swapped.yaml";
    std::ofstream(f) << "rows:\n"
                        "  - {id: K.a, config: '" << kSrc << "/configs/calibration/m4_vector_add_free2.yaml', metric: latency_ns,\n"
                        "     measured: 15000, scope: whole_kernel, source: 'a hand-made figure', third_party: false, uncertainty: 'none'}\n"
                        "  - {id: K.b, config: '" << kSrc << "/configs/calibration/m4_vector_add_free200.yaml', metric: latency_ns,\n"
                        "     measured: 186000, scope: whole_kernel, source: 'a hand-made figure', third_party: false, uncertainty: 'none'}\n";
    const json j = json::parse(test::bnsim_output("compare " + f + " --json", &st));
    CHECK(st == 0);
    REQUIRE(j["kernels"].size() == 1);
    CHECK(j["kernels"][0]["kernel"] == "K");
    CHECK(j["kernels"][0]["spearman"] == -1.0);
    CHECK(j["kernels"][0]["same_order"] == false);
    const std::string text = test::bnsim_output("compare " + f, &st);
    CHECK(text.find("kernel K: 2 configs (latency_ns), Spearman -1.000, NOT ordered as measured") != std::string::npos);
}

TEST_CASE("bnsim compare --bands gives each latency point run --uncertainty's band and says whether it holds the measurement") {
    int st = 0;
    const json j = json::parse(test::bnsim_output("compare " + kSrc + "/configs/measured/m4_vector_add.csv --bands --json", &st, 600));
    REQUIRE(st == 0);
    REQUIRE(j["points"].size() == 2);
    for (const auto& p : j["points"]) {
        INFO(p["id"]);
        REQUIRE(p.contains("band_ns"));
        const double lo = p["band_ns"][0].get<double>(), hi = p["band_ns"][1].get<double>();
        const double m = p["measured"].get<double>();
        CHECK(lo <= p["predicted"].get<double>());
        CHECK(p["predicted"].get<double>() <= hi);
        CHECK(p["band_contains"].get<bool>() == (lo <= m && m <= hi));
        CHECK(p["band_contains"] == true);  // M4's two measurements lie inside their bands
    }
    // The same band as run --uncertainty on the point's config (M4.free200: vector_add.free=200).
    const json run = json::parse(test::bnsim_output(
        "run " + kSrc + "/configs/calibration/m4_vector_add_free2.yaml --set vector_add.free=200 --uncertainty --json", &st, 600));
    REQUIRE(st == 0);
    const json& joint = run["uncertainty"];
    const json* f200 = nullptr;
    for (const auto& p : j["points"])
        if (p["id"] == "M4.free200") f200 = &p;
    REQUIRE(f200);
    CHECK((*f200)["band_ns"][0].get<double>() == Approx(joint["widened_p5_ns"].get<double>()));
    CHECK((*f200)["band_ns"][1].get<double>() == Approx(joint["widened_p95_ns"].get<double>()));
}
