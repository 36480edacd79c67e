// `bnsim calibrate --json` end to end: every public measurement is reproduced within the
// tolerance, except rows whose measurements.yaml entry documents a model gap (a deficiency of
// the timing model, not a parameter) -- and those must still be outside, so that fixing the
// model makes this test ask for the note to be removed.
#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>

#include <sys/wait.h>

#include <nlohmann/json.hpp>

namespace {

struct Output {
    int status = -1;
    std::string out;
};

Output run_command(const std::string& cmd) {
    Output o;
    FILE* p = popen(cmd.c_str(), "r");
    REQUIRE(p);
    std::array<char, 4096> buf{};
    size_t n = 0;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) o.out.append(buf.data(), n);
    const int st = pclose(p);
    o.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return o;
}

}  // namespace

TEST_CASE("bnsim calibrate lands every measurement within tolerance or names the model gap") {
    const std::string cmd = std::string("'") + BNSIM_BINARY + "' calibrate --json --measurements '" + BNSIM_SOURCE_DIR +
                            "/configs/calibration/measurements.yaml' 2>&1";
    const Output o = run_command(cmd);
    INFO(o.out);
    const auto j = nlohmann::json::parse(o.out);
    CHECK(j.at("tolerance_pct").get<double>() == 15);
    CHECK(j.at("whole_kernel_tolerance_pct").get<double>() == 10);
    REQUIRE(j.at("rows").size() >= 20);
    bool any_outside = false;
    // Each group's MAPE, summed here from the rows, is what the report says.
    std::map<std::string, std::pair<int, double>> by_scope;
    for (const auto& r : j.at("rows")) {
        const std::string id = r.at("id").get<std::string>();
        const std::string scope = r.at("scope").get<std::string>();
        const double tol = r.at("tolerance_pct").get<double>();
        CHECK(tol == (scope == "whole_kernel" ? 10 : 15));
        if (!r.at("error_pct").is_null()) {
            by_scope[scope].first++;
            by_scope[scope].second += std::abs(r.at("error_pct").get<double>());
        }
        INFO(id << ": measured " << r.at("measured") << ", simulated " << r.at("simulated") << ", error "
                << r.at("error_pct") << "%");
        REQUIRE(!r.at("simulated").is_null());  // every row ran
        const double err = r.at("error_pct").get<double>();
        if (r.contains("model_gap")) {
            CHECK(std::abs(err) > tol);  // fixed? then remove the row's model_gap note
            CHECK(!r.at("within_tolerance").get<bool>());
            any_outside = true;
        } else {
            CHECK(std::abs(err) <= tol);
            CHECK(r.at("within_tolerance").get<bool>());
        }
    }
    REQUIRE(by_scope.count("whole_kernel"));
    CHECK(by_scope["whole_kernel"].first >= 4);  // M4 at FREE_DIM 2 and 200, W1's two figures
    for (const auto& [scope, n_sum] : by_scope) {
        INFO(scope);
        const auto& g = j.at("groups").at(scope);
        CHECK(g.at("rows").get<int>() == n_sum.first);
        CHECK(g.at("mape_pct").get<double>() == Approx(n_sum.second / n_sum.first));
    }
    // The whole-kernel goal (the Whole-kernels issue): their MAPE at most 5%.
    CHECK(j.at("groups").at("whole_kernel").at("mape_pct").get<double>() <= 5);
    // The uncertainty bands' model error is this group's RMS error, to 0.1% (a change to the
    // model that moves it must move sim/sensitivity/latency_band.h's kModelErrorPct too).
    const double rms = j.at("groups").at("whole_kernel").at("rms_pct").get<double>();
    const Output band = run_command(std::string("'") + BNSIM_BINARY + "' run '" + BNSIM_SOURCE_DIR +
                                    "/configs/calibration/m4_vector_add_free200.yaml' --uncertainty --json 2>/dev/null");
    const auto u = nlohmann::json::parse(band.out).at("uncertainty");
    CHECK(u.at("model_error_pct").get<double>() == Approx(std::round(rms * 10) / 10));
    // The exit status is strict: non-zero whenever any row is outside, documented or not.
    CHECK(o.status == (any_outside ? 1 : 0));
    CHECK(j.at("pass").get<bool>() == !any_outside);
}

TEST_CASE("bnsim calibrate --only runs a subset, and a failing run is reported, not fatal") {
    const std::string base = std::string("'") + BNSIM_BINARY + "' calibrate --measurements '" + BNSIM_SOURCE_DIR +
                             "/configs/calibration/measurements.yaml'";
    const Output o = run_command(base + " --json --only M3.copy 2>&1");
    INFO(o.out);
    const auto j = nlohmann::json::parse(o.out);
    REQUIRE(j.at("rows").size() == 3);
    for (const auto& r : j.at("rows")) CHECK(r.at("id").get<std::string>().rfind("M3.copy", 0) == 0);
    // A hardware override reaches every row's child run: a slower DVE clock breaks M3.
    const Output slow = run_command(base + " --json --only M3.copy --set hardware.engines.dve.clock_ghz=0.5 2>&1");
    INFO(slow.out);
    const auto s = nlohmann::json::parse(slow.out);
    CHECK(slow.status == 1);
    for (const auto& r : s.at("rows")) CHECK(r.at("error_pct").get<double>() > 50);
    // A --set the configs reject is one config error up front (exit 2), not a FAILED row each.
    const Output bad_set = run_command(base + " --json --only M3.copy --set vector_op.free=0 2>&1");
    INFO(bad_set.out);
    CHECK(bad_set.status == 2);
    CHECK_THAT(bad_set.out, Catch::Contains("vector_op.free") && !Catch::Contains("\"rows\""));
    // A child that loads but cannot run (its trace needs more DMA queues than the hardware has)
    // becomes a FAILED row with its message.
    const Output bad = run_command(base + " --json --only M3.copy --set hardware.dma.queues_per_engine=1 2>/dev/null");
    INFO(bad.out);
    const auto b = nlohmann::json::parse(bad.out);
    CHECK(bad.status == 1);
    REQUIRE(b.at("rows").size() == 3);
    for (const auto& r : b.at("rows")) {
        CHECK(r.at("simulated").is_null());
        CHECK_THAT(r.at("error").get<std::string>(), Catch::Contains("queues_per_engine"));
    }
    // The text table prints every row and the verdict.
    const Output text = run_command(base + " --only M3 2>&1");
    CHECK_THAT(text.out, Catch::Contains("M3.reduce_sum.w512") && Catch::Contains("within 15%"));
    // Whole kernels are their own group, at their own tolerance.
    const Output whole = run_command(base + " --only M4 2>&1");
    CHECK_THAT(whole.out, Catch::Contains("whole kernels") && Catch::Contains("2 of 2 whole-kernel measurements within 10%"));
    CHECK_THAT(whole.out, !Catch::Contains("per-instruction measurements"));
}

TEST_CASE("bnsim calibrate scores a whole-kernel row at the whole-kernel tolerance, an instruction row at its own") {
    // One figure (M4.free200's config, 14.84 us simulated) measured as 17 us: -12.7%, inside 15%
    // and outside 10%, so the same row passes as an instruction row and fails as a whole kernel.
    const std::string dir = std::string(BNSIM_BINARY) + ".scope_test";
    std::system(("mkdir -p '" + dir + "'").c_str());
    const std::string cfg = std::string(BNSIM_SOURCE_DIR) + "/configs/calibration/m4_vector_add_free200.yaml";
    auto file = [&](const std::string& scope) {
        const std::string f = dir + "/" + scope + ".yaml";
        FILE* out = std::fopen(f.c_str(), "w");
        REQUIRE(out);
        std::fprintf(out,
                     "tolerance_pct: 15\nwhole_kernel_tolerance_pct: 10\nrows:\n"
                     "  - {id: X, config: '%s', metric: latency_ns, measured: 17000, scope: %s,\n"
                     "     source: 'a hand-made figure', third_party: false, uncertainty: 'none'}\n",
                     cfg.c_str(), scope.c_str());
        std::fclose(out);
        return f;
    };
    const Output inst = run_command(std::string("'") + BNSIM_BINARY + "' calibrate --json --measurements '" + file("instruction") + "' 2>&1");
    INFO(inst.out);
    CHECK(inst.status == 0);
    const Output whole = run_command(std::string("'") + BNSIM_BINARY + "' calibrate --json --measurements '" + file("whole_kernel") + "' 2>&1");
    INFO(whole.out);
    CHECK(whole.status == 1);
    const auto j = nlohmann::json::parse(whole.out);
    CHECK(j.at("rows").at(0).at("error_pct").get<double>() == Approx((14844.938 - 17000) / 170.0).epsilon(1e-3));
    CHECK(j.at("groups").at("whole_kernel").at("outside").at(0) == "X");
    std::system(("rm -rf '" + dir + "'").c_str());
}

