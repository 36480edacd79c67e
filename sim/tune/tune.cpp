#include "sim/tune/tune.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "configfile/config_error.h"
#include "configfile/number_text.h"
#include "kernels/kernel_entry.h"
#include "sim/runner/parallel_for.h"
#include "sim/runner/simulation_runner.h"
#include "sim/config/run_config.h"
#include "sim/report/decimal_text.h"
#include "sim/report/run_report.h"
#include "sim/sensitivity/joint_sample.h"
#include "sim/sensitivity/latency_band.h"
#include "sim/sensitivity/uncertain_params.h"
#include "sim/simulate/simulate.h"

namespace bnsim {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The kernel's axes for this config, with --axis replacing one of the same key or adding one.
std::vector<GridAxis> tune_axes_of(const RunConfig& cfg, const std::vector<GridAxis>& given) {
    std::vector<GridAxis> axes = decision_axes_of(cfg);
    for (const auto& g : given) {
        auto it = std::find_if(axes.begin(), axes.end(), [&](const GridAxis& a) { return a.key == g.key; });
        if (it != axes.end()) *it = g;
        else axes.push_back(g);
    }
    if (axes.empty())
        throw ConfigError(cfg.file + ": kernel '" + cfg.kernel +
                          "' declares no decisions to tune; expected --axis KEY=V1,V2,... (e.g. nki.args.rows_per_tile=64,128)");
    return axes;
}

// The kernel's own choice as grid values: each axis's value as the kernel's summary reports it,
// else as the config gives it (an NKI kernel's args), else left out.
std::map<std::string, std::string> own_choice_values(const RunConfig& cfg, const KernelSummary& summary,
                                                     const std::vector<GridAxis>& axes) {
    std::map<std::string, std::string> values = choice_values(summary, axes);
    const nlohmann::json resolved = nlohmann::json::parse(cfg.resolved_json(), nullptr, false);
    if (!resolved.is_object() || !resolved.contains("config")) return values;
    for (const auto& a : axes) {
        if (values.count(a.key)) continue;
        const nlohmann::json* node = &resolved["config"];
        size_t from = 0;
        while (node && from <= a.key.size()) {
            const size_t dot = std::min(a.key.find('.', from), a.key.size());
            const std::string part = a.key.substr(from, dot - from);
            node = node->is_object() && node->contains(part) ? &(*node)[part] : nullptr;
            from = dot + 1;
        }
        if (node && node->is_primitive() && !node->is_null())
            values[a.key] = node->is_string() ? node->get<std::string>() : node->dump();
    }
    return values;
}

// A candidate for confirmation: a grid point, or the kernel's own choice when no point spells it.
struct Candidate {
    std::string label;
    std::map<std::string, std::string> values;  // axis key -> value
    Overrides sets;  // beyond the base --set pairs
    bool own = false;
    double estimate_ns = kNaN;
    std::optional<RunConfig> cfg;  // its config at the preset
    std::optional<GeneratedKernel> kernel;
};

}  // namespace

bool has_tune_axes(const RunConfig& cfg) { return !decision_axes_of(cfg).empty(); }

TuneReport tune(const TuneOptions& o) {
    if (o.confirm < 1) throw ConfigError("--confirm " + std::to_string(o.confirm) + ": expected at least 1");
    const Overrides base_sets = parse_overrides(o.sets);
    // The kernel's own choice is the kernel's to make: the config with the entry's auto overrides
    // (e.g. `memory: auto`), whatever memory config the file fixes. A bad config:
    // ConfigError up front.
    Overrides own_sets = base_sets;
    const RunConfig given = load_run_config(o.config, base_sets);
    own_sets.insert(own_sets.end(), given.entry->auto_overrides.begin(), given.entry->auto_overrides.end());
    const RunConfig cfg = load_run_config(o.config, own_sets);
    TuneReport rep;
    rep.config = o.config;
    rep.hardware_file = cfg.hw_file;
    rep.kernel = cfg.kernel;
    rep.tie_pct = o.tie_pct;
    rep.model_error_pct = kModelErrorPct;
    rep.axes = tune_axes_of(cfg, o.axes);  // no axes: ConfigError before anything is traced
    const GeneratedKernel own_kernel = cfg.generate();  // a config the kernel refuses: KernelError
    const std::vector<GridPoint> grid = grid_points(rep.axes, kMaxTunePoints, "tune");
    rep.screened = grid.size();

    // 1. Screen: each point's config parsed here (a value the config refuses is the user's error,
    // exit 2), then traced and estimated on `jobs` threads (both pure functions of the config).
    std::vector<std::optional<RunConfig>> gcfg(grid.size());
    for (size_t g = 0; g < grid.size(); ++g) {
        Overrides ov = base_sets;
        ov.insert(ov.end(), grid[g].sets.begin(), grid[g].sets.end());
        OverrideOrigins origins;
        for (const auto& kv : grid[g].sets) origins[kv.first] = o.axes.empty() ? "tune axis" : "--axis";
        gcfg[g] = load_run_config(o.config, ov, origins);
    }
    std::vector<double> est(grid.size(), kNaN);
    std::vector<std::string> refused(grid.size());
    // Anything else a point throws (the trace limit, a deadlock: not a refusal) is rethrown here,
    // the first in grid order (parallel_for).
    parallel_for(grid.size(), o.jobs, [&](size_t g) {
        try {
            est[g] = estimate(gcfg[g]->hw, gcfg[g]->generate().trace).latency_ns;
        } catch (const KernelError& e) {
            refused[g] = e.what();  // infeasible for these inputs (e.g. over the SBUF budget)
        }
    });
    for (size_t g = 0; g < grid.size(); ++g)
        if (!refused[g].empty()) {
            ++rep.infeasible;
            if (rep.infeasible_example.empty()) rep.infeasible_example = grid[g].label + ": " + refused[g];
        }
    std::vector<size_t> order;
    for (size_t g = 0; g < grid.size(); ++g)
        if (std::isfinite(est[g])) order.push_back(g);
    if (order.empty())
        throw ConfigError(o.config + ": no config of the tune grid fits (" + rep.infeasible_example + ")");
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return est[a] < est[b]; });

    // 2. The candidates: the best `confirm` of the screen, the kernel's own choice, and for each
    // on/off axis the best screened config with the other value (what the decision is worth).
    std::vector<Candidate> cand;
    std::set<size_t> added;  // grid points already candidates
    auto add_point = [&](size_t g) {
        if (!added.insert(g).second) return;
        Candidate c;
        c.label = grid[g].label;
        c.values = grid[g].values;
        c.sets = grid[g].sets;
        c.estimate_ns = est[g];
        c.cfg = gcfg[g];
        cand.push_back(std::move(c));
    };
    for (size_t i = 0; i < order.size() && i < size_t(o.confirm); ++i) add_point(order[i]);
    for (const auto& a : rep.axes) {
        if (!is_on_off(a)) continue;
        const std::string best_value = grid[order[0]].values.at(a.key);
        for (size_t g : order)
            if (grid[g].values.at(a.key) != best_value) {
                add_point(g);
                break;
            }
    }
    // The kernel's own choice runs as the kernel makes it (its auto overrides), whether or not a
    // grid point spells the same decisions: that is the config the user has today.
    {
        Candidate c;
        c.values = own_choice_values(cfg, own_kernel.summary, rep.axes);
        c.label = grid_label(rep.axes, c.values);
        if (c.label.empty()) c.label = "the config as given";
        c.sets = cfg.entry->auto_overrides;
        c.own = true;
        c.estimate_ns = estimate(cfg.hw, own_kernel.trace).latency_ns;
        c.cfg = cfg;
        for (size_t i = 0; i < cand.size(); ++i)
            if (cand[i].values == c.values) cand.erase(cand.begin() + long(i));  // the same decisions once
        cand.push_back(std::move(c));
    }

    // 3. Confirm each in full simulation, in child processes (SystemC elaborates once per process).
    std::vector<SimRequest> reqs(cand.size());
    for (size_t i = 0; i < cand.size(); ++i) {
        reqs[i].config = o.config;
        reqs[i].sets = base_sets;
        reqs[i].sets.insert(reqs[i].sets.end(), cand[i].sets.begin(), cand[i].sets.end());
    }
    const std::vector<SimOutcome> runs = run_simulations(reqs, o.jobs, o.timeout_s);
    const size_t own_cand = cand.size() - 1;
    if (!runs[own_cand].ok) throw std::runtime_error("simulating " + o.config + ": " + runs[own_cand].error);
    std::vector<size_t> kept;  // candidates confirmed
    for (size_t i = 0; i < cand.size(); ++i)
        if (runs[i].ok) kept.push_back(i);
    auto full_ns = [&](size_t i) { return runs[i].report.latency_ns; };

    // 4. Robustness: every candidate priced in each joint sample of the estimated parameters, on
    // the full simulation's scale (its own full/estimate ratio at the preset). A sample that
    // changes the target (SBUF size, alignment, queues) re-plans the trace; the kernel's own
    // choice is then made again for that hardware.
    const auto params = uncertain_params(cfg.hw);
    const auto values = joint_sample(params, o.samples);
    for (const auto& p : params) rep.sampled.push_back(p.name);
    for (size_t i : kept) cand[i].kernel = cand[i].cfg->generate();
    std::vector<std::vector<double>> priced(values.size(), std::vector<double>(cand.size(), kNaN));
    parallel_for(values.size(), o.jobs, [&](size_t k) {
        for (size_t i : kept) {
            // Each candidate's own hardware: an --axis may set hardware keys.
            RunConfig c = *cand[i].cfg;
            for (size_t j = 0; j < params.size(); ++j) set_uncertain(c.hw, params[j], values[k][j]);
            try {
                const double e = c.target() == cand[i].cfg->target() ? estimate(c.hw, cand[i].kernel->trace).latency_ns
                                                                     : estimate(c.hw, c.generate().trace).latency_ns;
                priced[k][i] = e * full_ns(i) / cand[i].estimate_ns;
            } catch (const std::exception&) {
                // infeasible on that hardware: this candidate sits the sample out
            }
        }
    });
    // In each sample every candidate within the tie of that sample's best counts as best (ties
    // shown as ties, so shares may sum past 1); the kernel's own choice's share is the
    // probability that it is best.
    std::vector<std::vector<double>> lat(cand.size());
    std::vector<int> wins(cand.size(), 0);
    for (const auto& row : priced) {
        if (!std::isfinite(row[own_cand])) continue;
        double b = row[own_cand];
        for (size_t i : kept)
            if (std::isfinite(row[i])) b = std::min(b, row[i]);
        for (size_t i : kept)
            if (std::isfinite(row[i]) && within_tie(row[i], b, o.tie_pct)) ++wins[i];
        ++rep.samples;
        for (size_t i : kept)
            if (std::isfinite(row[i])) lat[i].push_back(row[i]);
    }

    // 5. The report: confirmed configs by latency, the best by the tie rule.
    for (size_t i : kept) {
        TunedConfig t;
        t.label = cand[i].label;
        t.values = cand[i].values;
        t.sets = cand[i].sets;
        t.own = cand[i].own;
        t.estimate_ns = cand[i].estimate_ns;
        t.latency_ns = full_ns(i);
        t.binding = runs[i].report.binding.unit;
        t.phases = phase_bindings(runs[i].report);
        const double L = t.latency_ns;
        t.p5_ns = lat[i].empty() ? L : percentile(lat[i], 0.05);
        t.p50_ns = lat[i].empty() ? L : percentile(lat[i], 0.50);
        t.p95_ns = lat[i].empty() ? L : percentile(lat[i], 0.95);
        // With no samples, the preset alone: best if within the tie of the fastest (set below).
        t.best_share = rep.samples ? double(wins[i]) / rep.samples : -1;
        rep.confirmed.push_back(std::move(t));
    }
    std::stable_sort(rep.confirmed.begin(), rep.confirmed.end(),
                     [](const TunedConfig& a, const TunedConfig& b) { return a.latency_ns < b.latency_ns; });
    for (size_t i = 0; i < rep.confirmed.size(); ++i)
        if (rep.confirmed[i].own) rep.own = i;
    for (auto& t : rep.confirmed)
        if (t.best_share < 0) t.best_share = within_tie(t.latency_ns, rep.confirmed[0].latency_ns, o.tie_pct) ? 1.0 : 0.0;
    const TunedConfig& own = rep.confirmed[rep.own];
    rep.best = within_tie(own.latency_ns, rep.confirmed[0].latency_ns, o.tie_pct) ? rep.own : 0;
    rep.choice_best_probability = own.best_share;
    // The most often best: the largest share, the kernel's own choice first on a tie, then the
    // faster in full simulation (confirmed is in that order).
    size_t most = rep.own;
    for (size_t i = 0; i < rep.confirmed.size(); ++i)
        if (rep.confirmed[i].best_share > rep.confirmed[most].best_share) most = i;
    rep.best_most_often = rep.confirmed[most].label;

    for (const auto& a : rep.axes) {
        if (!is_on_off(a)) continue;
        OnOffValue v{a.key, kNaN, kNaN};
        for (const auto& t : rep.confirmed) {
            const auto it = t.values.find(a.key);
            if (it == t.values.end()) continue;
            double& best = it->second == "true" ? v.on_ns : v.off_ns;
            if (!(best <= t.latency_ns)) best = t.latency_ns;
        }
        rep.on_off.push_back(v);
    }

    const TunedConfig& best = rep.confirmed[rep.best];
    rep.difference_pct = (own.latency_ns - best.latency_ns) / own.latency_ns * 100;
    if (rep.best == rep.own) {
        rep.keep_own = true;
        rep.reason = "the kernel's own choice is the best (within the " + short_number(o.tie_pct) + "% tie)";
    } else if (rep.difference_pct <= rep.model_error_pct) {
        rep.keep_own = true;
        rep.reason = "the best is " + fixed_decimals(rep.difference_pct, 2) + "% faster, within the model's own error (" +
                     short_number(rep.model_error_pct) + "%): keep the kernel's choice";
    } else {
        rep.keep_own = false;
        rep.reason = "the best is " + fixed_decimals(rep.difference_pct, 2) + "% faster than the kernel's choice, beyond the model's own error (" +
                     short_number(rep.model_error_pct) + "%)";
    }
    const TunedConfig& use = rep.confirmed[rep.keep_own ? rep.own : rep.best];
    rep.band_p5_ns = std::min(use.p5_ns, use.latency_ns) * (1 - rep.model_error_pct / 100);
    rep.band_p95_ns = std::max(use.p95_ns, use.latency_ns) * (1 + rep.model_error_pct / 100);
    return rep;
}

}  // namespace bnsim
