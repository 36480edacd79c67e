#include "sim/sensitivity/latency_band.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <iomanip>
#include <sstream>

#include "sim/runner/parallel_for.h"
#include "sim/runner/simulation_runner.h"
#include "configfile/number_text.h"
#include "sim/sensitivity/uncertain_params.h"
#include "sim/sampling/halton.h"
#include "sim/sensitivity/joint_sample.h"
#include "sim/config/run_config.h"
#include "sim/simulate/simulate.h"

namespace bnsim {

using json = nlohmann::ordered_json;

double band_figure(BandOf of, const HwConfig& hw, double kernel_ns, double latency_ns) {
    return of == BandOf::latency ? latency_ns : kernel_ns + hw.launch.profile_window_ns;
}

const char* band_of_name(BandOf of) { return of == BandOf::latency ? "latency" : "profile_total_time"; }

LatencyBand latency_band(const RunConfig& cfg, const std::string& config, const Overrides& sets, double latency_ns, int jobs,
                  double timeout_s, bool estimate, BandOf of) {
    const auto params = uncertain_params(cfg.hw, {}, cfg.generate().estimates);
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
        if (!outs[i].ok) {
            err[i] = outs[i].error;
            continue;
        }
        HwConfig hw = cfg.hw;  // this end's hardware: its own profile window, if that is the parameter
        set_uncertain(hw, params[i / 2], i % 2 ? params[i / 2].hi : params[i / 2].lo);
        lat[i] = band_figure(of, hw, outs[i].report.kernel_ns, outs[i].report.latency_ns);
    }
    LatencyBand b;
    b.of = of;
    b.latency_ns = b.low_ns = b.high_ns = latency_ns;
    for (size_t i = 0; i < params.size(); ++i) {
        BandParam p{params[i].name, params[i].lo, params[i].hi, lat[2 * i], lat[2 * i + 1], err[2 * i], err[2 * i + 1]};
        for (int e = 0; e < 2; ++e) {
            if (!err[2 * i + size_t(e)].empty()) continue;
            const double l = lat[2 * i + size_t(e)];
            const BandDriver d{params[i].name, e ? params[i].hi : params[i].lo};
            if (l < b.low_ns) b.low_ns = l, b.low_driver = d;
            if (l > b.high_ns) b.high_ns = l, b.high_driver = d;
        }
        b.params.push_back(std::move(p));
    }
    b.method = std::string("one estimated parameter at a time at each end of its declared range") +
               (estimate ? ", each end by the screening estimate" : ", each end in full simulation");
    return b;
}

void add_joint_band(LatencyBand& band, const RunConfig& cfg, const std::string& config, const Overrides& sets, double latency_ns,
                    int jobs, double timeout_s, int n_samples) {
    // The trace is the preset's unless a sample sets a kernel key (the compiler's buffer depth)
    // or changes the target (SBUF size, alignment, queues), when the kernel plans again.
    const GeneratedKernel base_trace = cfg.generate();
    const auto params = uncertain_params(cfg.hw, {}, base_trace.estimates);
    band.model_error_pct = kModelErrorPct;
    JointBand& b = band.joint.emplace();
    if (params.empty() || params.size() > Halton::kMaxDims) {
        b.p5_ns = b.p50_ns = b.p95_ns = b.min_ns = b.max_ns = latency_ns;
        b.widened_p5_ns = latency_ns * (1 - kModelErrorPct / 100);
        b.widened_p95_ns = latency_ns * (1 + kModelErrorPct / 100);
        return;
    }
    const size_t n = params.size();
    const std::vector<std::vector<double>> values = joint_sample(params, n_samples);
    const BandOf of = band.of;
    const SimResult base_run = estimate(cfg.hw, base_trace.trace);
    const double base_est = band_figure(of, cfg.hw, base_run.kernel_ns, base_run.latency_ns);
    // One config and trace per distinct set of kernel-key values in the sample, each traced once.
    struct Variant {
        Overrides keys;
        std::optional<RunConfig> cfg;
        std::optional<GeneratedKernel> kernel;
    };
    std::vector<Variant> variants;
    std::vector<size_t> variant_of(values.size());
    for (size_t k = 0; k < values.size(); ++k) {
        Overrides keys = kernel_overrides(params, values[k]);
        size_t v = 0;
        while (v < variants.size() && variants[v].keys != keys) ++v;
        if (v == variants.size()) variants.push_back({std::move(keys), {}, {}});
        variant_of[k] = v;
    }
    parallel_for(variants.size(), jobs, [&](size_t v) {
        Variant& var = variants[v];
        try {
            if (var.keys.empty()) {
                var.cfg = cfg;
                var.kernel = base_trace;
                return;
            }
            Overrides all = sets;
            all.insert(all.end(), var.keys.begin(), var.keys.end());
            var.cfg = load_run_config(config, all);
            var.kernel = var.cfg->generate();
        } catch (const std::exception&) {
            // a kernel refusing these values (e.g. SBUF overflow with more buffers): its samples are left out
        }
    });
    std::vector<double> est(size_t(n_samples), std::numeric_limits<double>::quiet_NaN());
    parallel_for(size_t(n_samples), jobs, [&](size_t k) {
        const Variant& var = variants[variant_of[k]];
        if (!var.kernel) return;
        RunConfig c = *var.cfg;
        for (size_t i = 0; i < n; ++i) set_uncertain(c.hw, params[i], values[k][i]);
        try {
            const SimResult r = c.target() == var.cfg->target() ? estimate(c.hw, var.kernel->trace)
                                                                : estimate(c.hw, c.generate().trace);
            est[k] = band_figure(of, c.hw, r.kernel_ns, r.latency_ns);
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
    b.p5_ns = percentile(lat, 0.05);
    b.p50_ns = percentile(lat, 0.50);
    b.p95_ns = percentile(lat, 0.95);
    // Widened by the model's own error, which is the nominal prediction's error against trn2: the
    // band holds the nominal latency's error band too when the sample lies to one side of it (W1:
    // every joint sample above the nominal). tune's band is the same (tune.cpp).
    b.widened_p5_ns = std::min(b.p5_ns, latency_ns) * (1 - kModelErrorPct / 100);
    b.widened_p95_ns = std::max(b.p95_ns, latency_ns) * (1 + kModelErrorPct / 100);
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
        if (end_runs[e].ok) {
            const RunReport& r = end_runs[e].report;
            HwConfig hw = cfg.hw;  // the sample's hardware
            for (size_t i = 0; i < n; ++i) set_uncertain(hw, params[i], values[e ? hi_k : lo_k][i]);
            confirmed[e] = band_figure(of, hw, r.kernel_ns, r.latency_ns);
        }
    const double lo_est = *std::min_element(lat.begin(), lat.end()), hi_est = *std::max_element(lat.begin(), lat.end());
    b.min_ns = std::isfinite(confirmed[0]) ? std::min(confirmed[0], lo_est) : lo_est;
    b.max_ns = std::isfinite(confirmed[1]) ? std::max(confirmed[1], hi_est) : hi_est;
    if (std::isfinite(confirmed[0])) b.min_confirmed_ns = confirmed[0];
    if (std::isfinite(confirmed[1])) b.max_confirmed_ns = confirmed[1];
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
    for (size_t i : order) b.ranking.emplace_back(params[i].name, total > 0 ? r2[i] / total : 0.0);
    b.samples = lat.size();
    b.method = "every estimated parameter at once: " + std::to_string(n_samples) +
                        " scrambled Halton points of their ranges by the screening estimate, scaled to the full simulation at "
                        "the preset; the lowest and highest confirmed in full simulation; widened by the model's own "
                        "error (" + short_number(kModelErrorPct) + "%, the RMS error of the whole-kernel calibration rows)";
}

json to_json(const LatencyBand& b) {
    json j;
    j["of"] = band_of_name(b.of);
    j["latency_ns"] = b.latency_ns;
    j["low_ns"] = b.low_ns;
    j["high_ns"] = b.high_ns;
    auto driver = [](const std::optional<BandDriver>& d) {
        return d ? json{{"name", d->name}, {"value", d->value}} : json(nullptr);
    };
    j["low_driver"] = driver(b.low_driver);
    j["high_driver"] = driver(b.high_driver);
    j["method"] = b.method;
    json ps = json::array();
    for (const auto& p : b.params) {
        json pj{{"name", p.name}, {"low", p.low}, {"high", p.high},
                {"latency_low_ns", p.latency_low_ns}, {"latency_high_ns", p.latency_high_ns}};
        if (!p.error_low.empty()) pj["error_low"] = p.error_low;
        if (!p.error_high.empty()) pj["error_high"] = p.error_high;
        ps.push_back(pj);
    }
    j["params"] = ps;
    if (b.joint) {
        const JointBand& g = *b.joint;
        j["model_error_pct"] = b.model_error_pct;
        j["p5_ns"] = g.p5_ns;
        j["p50_ns"] = g.p50_ns;
        j["p95_ns"] = g.p95_ns;
        j["widened_p5_ns"] = g.widened_p5_ns;
        j["widened_p95_ns"] = g.widened_p95_ns;
        j["min_ns"] = g.min_ns;
        j["max_ns"] = g.max_ns;
        if (!g.method.empty()) {  // a sample was drawn
            j["min_confirmed_ns"] = g.min_confirmed_ns ? json(*g.min_confirmed_ns) : json(nullptr);
            j["max_confirmed_ns"] = g.max_confirmed_ns ? json(*g.max_confirmed_ns) : json(nullptr);
        }
        json ranking = json::array();
        for (const auto& [name, share] : g.ranking) ranking.push_back({{"name", name}, {"share", share}});
        j["ranking"] = ranking;
        j["joint_samples"] = g.samples;
        if (!g.method.empty()) j["joint_method"] = g.method;
    }
    if (b.choice) {
        j["choice_best_probability"] = b.choice->best_probability;
        j["best_most_often"] = b.choice->best_most_often;
        j["choice_samples"] = b.choice->samples;
    }
    return j;
}

void print_latency_band(const LatencyBand& b, std::ostream& out) {
    auto us = [](double ns) {
        std::ostringstream o;
        o << std::fixed << std::setprecision(2) << ns / 1000 << " us";
        return o.str();
    };
    auto driver = [](const std::optional<BandDriver>& d) {
        if (!d) return std::string("none");
        std::ostringstream o;
        o << d->name << "=" << d->value;
        return o.str();
    };
    if (b.of == BandOf::profile_total_time)
        out << "profile     total_time " << us(b.latency_ns)
            << " (the kernel + launch.profile_window_ns, the profiled run's pre- and postamble); the bands below are of it\n";
    out << "band        " << us(b.latency_ns) << " in [" << us(b.low_ns) << ", " << us(b.high_ns) << "] over "
        << b.params.size() << " estimated parameters' ranges; low end " << driver(b.low_driver) << ", high end "
        << driver(b.high_driver) << "\n";
    if (b.joint) {
        const JointBand& g = *b.joint;
        out << "joint band  p50 " << us(g.p50_ns) << ", 90% in [" << us(g.p5_ns) << ", " << us(g.p95_ns)
            << "] (with the model's own " << short_number(b.model_error_pct) << "%: [" << us(g.widened_p5_ns) << ", "
            << us(g.widened_p95_ns) << "]), all in [" << us(g.min_ns) << ", " << us(g.max_ns) << "] over " << g.samples
            << " joint samples";
        if (!g.ranking.empty() && g.ranking[0].second > 0)
            out << "; most of it: " << g.ranking[0].first << " (" << std::fixed << std::setprecision(0)
                << g.ranking[0].second * 100 << "%)";
        out << "\n";
    }
    if (b.choice)
        out << "choice      the kernel's own choice is within the tie of the best in " << std::fixed << std::setprecision(0)
            << b.choice->best_probability * 100 << "% of " << b.choice->samples
            << " joint samples (bnsim tune); most often best: " << b.choice->best_most_often << "\n";
}

}  // namespace bnsim
