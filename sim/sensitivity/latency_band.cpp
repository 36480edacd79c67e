#include "sim/sensitivity/latency_band.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <iomanip>
#include <sstream>

#include "sim/runner/parallel_for.h"
#include "sim/runner/simulation_runner.h"
#include "configfile/number_text.h"
#include "sim/sensitivity/uncertain_params.h"
#include "sim/halton.h"
#include "sim/sensitivity/joint_sample.h"
#include "sim/simulate.h"

namespace bnsim {

using json = nlohmann::ordered_json;

json latency_band(const RunConfig& cfg, const std::string& config, const Overrides& sets, double latency_ns, int jobs,
                  double timeout_s, bool estimate) {
    const auto params = uncertain_params(cfg.hw);
    std::vector<SimRequest> reqs(2 * params.size());
    for (size_t i = 0; i < reqs.size(); ++i) {
        const auto& p = params[i / 2];
        reqs[i].config = config;
        reqs[i].sets = sets;
        reqs[i].sets.push_back(uncertain_override(p, i % 2 ? p.hi : p.lo));
        reqs[i].want = estimate ? SimRequest::Want::estimate_report : SimRequest::Want::report;
    }
    const std::vector<SimOutcome> outs = run_simulations(reqs, jobs, timeout_s);
    std::vector<double> lat(reqs.size(), latency_ns);
    std::vector<std::string> err(reqs.size());
    for (size_t i = 0; i < reqs.size(); ++i) {
        if (outs[i].ok) lat[i] = outs[i].report.latency_ns;
        else err[i] = outs[i].error;
    }
    json b;
    b["latency_ns"] = latency_ns;
    double lo = latency_ns, hi = latency_ns;
    json lo_d = nullptr, hi_d = nullptr, ps = json::array();
    for (size_t i = 0; i < params.size(); ++i) {
        json p{{"name", params[i].name}, {"low", params[i].lo}, {"high", params[i].hi},
               {"latency_low_ns", lat[2 * i]}, {"latency_high_ns", lat[2 * i + 1]}};
        for (int e = 0; e < 2; ++e) {
            if (!err[2 * i + size_t(e)].empty()) {
                p[e ? "error_high" : "error_low"] = err[2 * i + size_t(e)];
                continue;
            }
            const double l = lat[2 * i + size_t(e)];
            const json d{{"name", params[i].name}, {"value", e ? params[i].hi : params[i].lo}};
            if (l < lo) lo = l, lo_d = d;
            if (l > hi) hi = l, hi_d = d;
        }
        ps.push_back(p);
    }
    b["low_ns"] = lo;
    b["high_ns"] = hi;
    b["low_driver"] = lo_d;
    b["high_driver"] = hi_d;
    b["method"] = std::string("one estimated parameter at a time at each end of its declared range") +
                  (estimate ? ", each end by the screening estimate" : ", each end in full simulation");
    b["params"] = ps;
    return b;
}


void add_joint_band(json& b, const RunConfig& cfg, const std::string& config, const Overrides& sets, double latency_ns,
                    int jobs, double timeout_s, int n_samples) {
    const auto params = uncertain_params(cfg.hw);
    b["model_error_pct"] = kModelErrorPct;
    if (params.empty() || params.size() > Halton::kMaxDims) {
        for (const char* k : {"p5_ns", "p50_ns", "p95_ns", "min_ns", "max_ns"}) b[k] = latency_ns;
        b["widened_p5_ns"] = latency_ns * (1 - kModelErrorPct / 100);
        b["widened_p95_ns"] = latency_ns * (1 + kModelErrorPct / 100);
        b["ranking"] = json::array();
        b["joint_samples"] = 0;
        return;
    }
    const size_t n = params.size();
    const std::vector<std::vector<double>> values = joint_sample(params, n_samples);
    // Each priced by the estimate; the trace is the preset's unless a sample changes the target
    // (SBUF size, alignment, queues), when the kernel plans again.
    const GeneratedKernel base_trace = cfg.generate();
    const double base_est = estimate(cfg.hw, base_trace.trace).latency_ns;
    std::vector<double> est(size_t(n_samples), std::numeric_limits<double>::quiet_NaN());
    parallel_for(size_t(n_samples), jobs, [&](size_t k) {
        RunConfig c = cfg;
        for (size_t i = 0; i < n; ++i) set_uncertain(c.hw, params[i], values[k][i]);
        try {
            est[k] = c.target() == cfg.target() ? estimate(c.hw, base_trace.trace).latency_ns
                                                : estimate(c.hw, c.generate().trace).latency_ns;
        } catch (const std::exception&) {
            // infeasible with these parameters (e.g. a smaller SBUF): left out of the band
        }
    });
    // On the full simulation's scale: the estimate's ratio at the preset.
    const double scale = base_est > 0 ? latency_ns / base_est : 1;
    std::vector<double> lat;
    std::vector<size_t> kept;
    for (int k = 0; k < n_samples; ++k)
        if (std::isfinite(est[size_t(k)])) lat.push_back(est[size_t(k)] * scale), kept.push_back(size_t(k));
    if (lat.empty()) throw std::runtime_error("no joint sample of the uncertain parameters could be estimated");
    b["p5_ns"] = percentile(lat, 0.05);
    b["p50_ns"] = percentile(lat, 0.50);
    b["p95_ns"] = percentile(lat, 0.95);
    b["widened_p5_ns"] = b["p5_ns"].get<double>() * (1 - kModelErrorPct / 100);
    b["widened_p95_ns"] = b["p95_ns"].get<double>() * (1 + kModelErrorPct / 100);
    // The extremes, confirmed in full simulation.
    const size_t lo_k = kept[size_t(std::min_element(lat.begin(), lat.end()) - lat.begin())];
    const size_t hi_k = kept[size_t(std::max_element(lat.begin(), lat.end()) - lat.begin())];
    std::vector<double> confirmed(2, std::numeric_limits<double>::quiet_NaN());
    std::vector<SimRequest> ends(2);
    for (size_t e = 0; e < 2; ++e) {
        ends[e].config = config;
        ends[e].sets = sets;
        for (size_t i = 0; i < n; ++i) ends[e].sets.push_back(uncertain_override(params[i], values[e ? hi_k : lo_k][i]));
    }
    const std::vector<SimOutcome> end_runs = run_simulations(ends, jobs, timeout_s);
    for (size_t e = 0; e < 2; ++e)
        if (end_runs[e].ok) confirmed[e] = end_runs[e].report.latency_ns;
    const double lo_est = *std::min_element(lat.begin(), lat.end()), hi_est = *std::max_element(lat.begin(), lat.end());
    b["min_ns"] = std::isfinite(confirmed[0]) ? std::min(confirmed[0], lo_est) : lo_est;
    b["max_ns"] = std::isfinite(confirmed[1]) ? std::max(confirmed[1], hi_est) : hi_est;
    b["min_confirmed_ns"] = std::isfinite(confirmed[0]) ? json(confirmed[0]) : json(nullptr);
    b["max_confirmed_ns"] = std::isfinite(confirmed[1]) ? json(confirmed[1]) : json(nullptr);
    // Each parameter's share of the variance: its squared correlation with the latency over the
    // sample (the Halton points are near-uncorrelated across parameters), normalised.
    std::vector<double> r2(n, 0.0);
    const double m_l = std::accumulate(lat.begin(), lat.end(), 0.0) / double(lat.size());
    for (size_t i = 0; i < n; ++i) {
        double m_v = 0;
        for (size_t k : kept) m_v += values[k][i];
        m_v /= double(kept.size());
        double sxy = 0, sxx = 0, syy = 0;
        for (size_t j = 0; j < kept.size(); ++j) {
            const double dx = values[kept[j]][i] - m_v, dy = lat[j] - m_l;
            sxy += dx * dy, sxx += dx * dx, syy += dy * dy;
        }
        r2[i] = sxx > 0 && syy > 0 ? sxy * sxy / (sxx * syy) : 0;
    }
    const double total = std::accumulate(r2.begin(), r2.end(), 0.0);
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t c) { return r2[a] > r2[c]; });
    json ranking = json::array();
    for (size_t i : order) ranking.push_back({{"name", params[i].name}, {"share", total > 0 ? r2[i] / total : 0.0}});
    b["ranking"] = ranking;
    b["joint_samples"] = lat.size();
    b["joint_method"] = "every estimated parameter at once: " + std::to_string(n_samples) +
                        " scrambled Halton points of their ranges by the screening estimate, scaled to the full simulation at "
                        "the preset; the lowest and highest confirmed in full simulation; widened by the model's own "
                        "error (" + short_number(kModelErrorPct) + "%, the per-instruction calibration's MAPE)";
}

void print_latency_band(const json& b, std::ostream& out) {
    auto us = [](double ns) {
        std::ostringstream o;
        o << std::fixed << std::setprecision(2) << ns / 1000 << " us";
        return o.str();
    };
    auto driver = [](const json& d) {
        if (d.is_null()) return std::string("none");
        std::ostringstream o;
        o << d["name"].get<std::string>() << "=" << d["value"].get<double>();
        return o.str();
    };
    out << "band        " << us(b["latency_ns"].get<double>()) << " in [" << us(b["low_ns"].get<double>()) << ", "
        << us(b["high_ns"].get<double>()) << "] over " << b["params"].size()
        << " estimated parameters' ranges; low end " << driver(b["low_driver"]) << ", high end "
        << driver(b["high_driver"]) << "\n";
    if (b.contains("p50_ns") && b.contains("ranking")) {
        out << "joint band  p50 " << us(b["p50_ns"].get<double>()) << ", 90% in [" << us(b["p5_ns"].get<double>()) << ", "
            << us(b["p95_ns"].get<double>()) << "] (with the model's own " << short_number(b["model_error_pct"].get<double>())
            << "%: [" << us(b["widened_p5_ns"].get<double>()) << ", " << us(b["widened_p95_ns"].get<double>())
            << "]), all in [" << us(b["min_ns"].get<double>()) << ", " << us(b["max_ns"].get<double>()) << "] over "
            << b["joint_samples"].get<int>() << " joint samples";
        if (!b["ranking"].empty() && b["ranking"][0]["share"].get<double>() > 0)
            out << "; most of it: " << b["ranking"][0]["name"].get<std::string>() << " ("
                << std::fixed << std::setprecision(0) << b["ranking"][0]["share"].get<double>() * 100 << "%)";
        out << "\n";
    }
    if (b.contains("choice_best_probability"))
        out << "choice      the kernel's own choice is within the tie of the best in " << std::fixed << std::setprecision(0)
            << b["choice_best_probability"].get<double>() * 100 << "% of " << b["choice_samples"].get<int>()
            << " joint samples (bnsim tune); most often best: " << b["best_most_often"].get<std::string>() << "\n";
}

}  // namespace bnsim
