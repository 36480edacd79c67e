// bnsim fit's search recovers parameters from exact data for each kind of response a
// discrete-event simulator has: smooth, piecewise with flat steps and a kink (as queue occupancy
// gives), an integer, a flag, and two at once; a value on its bound says so and which way the
// data pull; each value's interval holds the truth. The models are closed forms, so the truth is
// known exactly and every test runs in milliseconds (the bnsim-model fits are in test_fit.cpp).
#include <catch2/catch.hpp>

#include <cmath>

#include "sim/fit/fit.h"

using namespace bnsim;

namespace {

// n measured points, point k measured as `truth_model(k)`.
MeasuredSet recovery_points(size_t n, const std::function<double(size_t)>& truth_model) {
    MeasuredSet s;
    s.file = "synthetic";
    for (size_t k = 0; k < n; ++k) {
        MeasuredPoint p;
        p.id = "p" + std::to_string(k);
        p.measured = truth_model(k);
        s.points.push_back(p);
    }
    return s;
}

FitParam recovery_param(const std::string& name, double lo, double hi, double start, FitParam::Kind kind = FitParam::Kind::real) {
    FitParam p;
    p.name = name;
    p.lo = lo;
    p.hi = hi;
    p.start = start;
    p.kind = kind;
    p.bounds_from = "--params";
    return p;
}

// A latency as a queue-occupancy floor gives it: per DMA max(occupancy, transfer time), summed
// over a staircase of sizes, plus a fixed cost. Flat where the floor binds, kinked where it
// stops binding: a jagged response with many local minima for a local search.
double occupancy_latency(size_t k, double occupancy) {
    double t = 9400;
    for (int d = 0; d < 24; ++d) {
        const double transfer = 120.0 * double((k + 1) * (d % 7 + 1));  // ns
        t += std::max(occupancy, transfer) + std::floor(transfer / 512) * 37;
    }
    return t;
}

}  // namespace

TEST_CASE("fit recovery: a smooth parameter within 2%") {
    const double truth = 1234;
    const auto model_of = [](double x) { return [x](size_t k) { return 5000 + double(k + 1) * x + 0.001 * x * x; }; };
    const MeasuredSet set = recovery_points(6, model_of(truth));
    const FitResult r = fit_parameters(set, {recovery_param("a", 100, 5000, 300)}, [&](const std::vector<double>& v) {
        std::vector<double> out;
        for (size_t k = 0; k < 6; ++k) out.push_back(model_of(v[0])(k));
        return out;
    });
    CHECK(r.params[0].value == Approx(truth).epsilon(0.02));
    CHECK(r.rms_after < 0.1);
    CHECK(r.params[0].at_bound.empty());
    CHECK(r.params[0].interval_lo <= truth);
    CHECK(r.params[0].interval_hi >= truth);
}

TEST_CASE("fit recovery: a piecewise parameter with flat steps and kinks (queue occupancy) within 2%") {
    const double truth = 1200;
    const MeasuredSet set = recovery_points(6, [&](size_t k) { return occupancy_latency(k, truth); });
    const FitResult r = fit_parameters(set, {recovery_param("dma.min_queue_occupancy_ns", 600, 2000, 800)},
                                       [&](const std::vector<double>& v) {
                                           std::vector<double> out;
                                           for (size_t k = 0; k < 6; ++k) out.push_back(occupancy_latency(k, v[0]));
                                           return out;
                                       });
    INFO(r.method << "; " << r.evaluations << " evaluations");
    CHECK(r.params[0].value == Approx(truth).epsilon(0.02));
    CHECK(r.rms_after < 0.05);
}

TEST_CASE("fit recovery: an integer parameter exactly, searched only at whole values") {
    const int truth = 23;
    bool fractional = false;
    const auto model = [&](const std::vector<double>& v) {
        fractional = fractional || v[0] != std::round(v[0]);
        std::vector<double> out;
        // Bandwidth shared by `channels`: a step response in the integer.
        for (size_t k = 0; k < 5; ++k) out.push_back(1000 + 64000.0 * double(k + 1) / v[0] + (int(v[0]) % 4) * 3.0);
        return out;
    };
    const MeasuredSet set = recovery_points(5, [&](size_t k) { return model({double(truth)})[k]; });
    const FitResult r = fit_parameters(set, {recovery_param("hbm.channels", 16, 32, 16, FitParam::Kind::integer)}, model);
    CHECK_FALSE(fractional);
    CHECK(r.params[0].value == truth);
    CHECK(r.params[0].interval_lo == truth);  // a unit step either way is far off
    CHECK(r.params[0].interval_hi == truth);
}

TEST_CASE("fit recovery: a flag exactly") {
    const auto model = [](const std::vector<double>& v) {
        std::vector<double> out;
        for (size_t k = 0; k < 4; ++k) out.push_back(v[0] != 0 ? 2000 + 10.0 * double(k) : 2600 + 40.0 * double(k));
        return out;
    };
    for (double truth : {0.0, 1.0}) {
        const MeasuredSet set = recovery_points(4, [&](size_t k) { return model({truth})[k]; });
        const FitResult r = fit_parameters(set, {recovery_param("dma.merge_contiguous_rows", 0, 1, 1 - truth, FitParam::Kind::boolean)}, model);
        CHECK(r.params[0].value == truth);
        CHECK(r.rms_after == 0);
    }
}

TEST_CASE("fit recovery: a real and an integer parameter at once") {
    const double truth_x = 640;
    const int truth_n = 5;
    const auto model = [](const std::vector<double>& v) {
        std::vector<double> out;
        for (size_t k = 0; k < 8; ++k) {
            const double size = double(256 << (k % 4)), count = double(1 + k / 4);
            out.push_back(count * (v[0] + size * 4.0 / v[1]) + std::max(0.0, 900 - v[0]) * 0.5);
        }
        return out;
    };
    const MeasuredSet set = recovery_points(8, [&](size_t k) { return model({truth_x, double(truth_n)})[k]; });
    const FitResult r = fit_parameters(
        set, {recovery_param("x_ns", 100, 2000, 1000), recovery_param("engines", 1, 16, 8, FitParam::Kind::integer)}, model);
    INFO(r.method << "; " << r.evaluations << " evaluations");
    CHECK(r.params[0].value == Approx(truth_x).epsilon(0.02));
    CHECK(r.params[1].value == truth_n);
}

TEST_CASE("fit recovery: a value on its bound says so, and which way the data pull") {
    // The truth, 2600, lies above the range [600, 2000]: the fit ends on the high bound.
    const MeasuredSet set = recovery_points(5, [](size_t k) { return 1000 + double(k + 1) * 2600; });
    const FitResult r = fit_parameters(set, {recovery_param("a", 600, 2000, 800)}, [](const std::vector<double>& v) {
        std::vector<double> out;
        for (size_t k = 0; k < 5; ++k) out.push_back(1000 + double(k + 1) * v[0]);
        return out;
    });
    CHECK(r.params[0].value == Approx(2000).epsilon(1e-3));
    CHECK(r.params[0].at_bound == "high");
    CHECK(r.params[0].pull == "above the range");
    // Inside the range: no bound.
    const MeasuredSet inside = recovery_points(5, [](size_t k) { return 1000 + double(k + 1) * 1500; });
    const FitResult q = fit_parameters(inside, {recovery_param("a", 600, 2000, 800)}, [](const std::vector<double>& v) {
        std::vector<double> out;
        for (size_t k = 0; k < 5; ++k) out.push_back(1000 + double(k + 1) * v[0]);
        return out;
    });
    CHECK(q.params[0].at_bound.empty());
    CHECK(q.params[0].pull.empty());
}

TEST_CASE("fit: vectors asked for together give the result of asking for them one by one") {
    // A real and an integer parameter, a response that fails in one band of the real one (as a
    // simulation that deadlocks would), at budgets spent in the global sample and after it.
    const auto model = [](const std::vector<double>& v) {
        if (v[0] > 1500 && v[0] < 1600) throw std::runtime_error("p3: no result in this band");
        std::vector<double> out;
        for (size_t k = 0; k < 8; ++k) {
            const double size = double(256 << (k % 4)), count = double(1 + k / 4);
            out.push_back(count * (v[0] + size * 4.0 / v[1]) + std::max(0.0, 900 - v[0]) * 0.5);
        }
        return out;
    };
    const MeasuredSet set = recovery_points(8, [&](size_t k) { return model({640, 5})[k]; });
    const std::vector<FitParam> params{recovery_param("x_ns", 100, 2000, 1000),
                                       recovery_param("engines", 1, 16, 8, FitParam::Kind::integer)};
    for (int budget : {1, 5, 13, 40, 0}) {
        INFO("budget " << budget);
        FitOptions o;
        o.max_evals = budget;
        size_t largest = 0, asked = 0;
        const PointBatchModel each = one_by_one(model);
        const PointBatchModel together = [&](const std::vector<std::vector<double>>& vs) {
            largest = std::max(largest, vs.size());
            asked += vs.size();
            return each(vs);
        };
        const FitResult a = fit_parameters(set, params, model, o);
        const FitResult b = fit_parameters(set, params, together, o);
        CHECK(largest >= 2);
        CHECK(a.evaluations == b.evaluations);
        // Each evaluation asked for once (the start's, for the errors before the fit), then the
        // fitted vector and one identifiability step per parameter.
        CHECK(asked == size_t(b.evaluations) + 1 + params.size());
        CHECK(a.stop_reason == b.stop_reason);
        CHECK(a.rms_before == b.rms_before);
        CHECK(a.rms_after == b.rms_after);
        CHECK(a.mape_after == b.mape_after);
        REQUIRE(a.params.size() == b.params.size());
        for (size_t i = 0; i < a.params.size(); ++i) {
            CHECK(a.params[i].value == b.params[i].value);
            CHECK(a.params[i].interval_lo == b.params[i].interval_lo);
            CHECK(a.params[i].interval_hi == b.params[i].interval_hi);
            CHECK(a.params[i].at_bound == b.params[i].at_bound);
            CHECK(a.identifiability[i].sensitivity_pct == b.identifiability[i].sensitivity_pct);
            CHECK(a.identifiability[i].identifiable == b.identifiability[i].identifiable);
        }
    }
}

TEST_CASE("fit: each interval edge is where the error crosses the limit, to the bisection's resolution") {
    // Every prediction off by (a - 700) / 1000 relative: the RMS error is 100 |a - 700| / 1000
    // percent, so the values within the limit are 700 -+ 10 (fitted error + tolerance), closed form.
    const MeasuredSet set = recovery_points(4, [](size_t k) { return 1000.0 * double(k + 1); });
    const auto model = [](const std::vector<double>& v) {
        std::vector<double> out;
        for (size_t k = 0; k < 4; ++k) out.push_back(1000.0 * double(k + 1) * (1 + (v[0] - 700) / 1000));
        return out;
    };
    for (double tol : {0.25, 1.0, 3.3}) {
        INFO("tolerance " << tol);
        FitOptions o;
        o.interval_tolerance_pct = tol;
        const FitResult r = fit_parameters(set, {recovery_param("a", 0, 1600, 300)}, model, o);
        const double half = 10 * (r.rms_after + tol), resolution = 1e-4 * 1600;
        CHECK(r.params[0].interval_lo == Approx(700 - half).margin(resolution));
        CHECK(r.params[0].interval_hi == Approx(700 + half).margin(resolution));
        // The edges lie inside: their errors are within the limit.
        CHECK(100 * std::fabs(r.params[0].interval_lo - 700) / 1000 <= r.rms_after + tol + 1e-9);
        CHECK(100 * std::fabs(r.params[0].interval_hi - 700) / 1000 <= r.rms_after + tol + 1e-9);
    }
}
