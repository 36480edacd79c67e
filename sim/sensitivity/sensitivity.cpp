#include "sim/sensitivity/sensitivity.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <mutex>
#include <sstream>

#include <cstdint>
#include <limits>
#include <optional>

#include "configfile/config_error.h"
#include "kernels/kernel_entry.h"
#include "sim/decision/decision_grid.h"
#include "sim/runner/parallel_for.h"
#include "sim/runner/simulation_runner.h"
#include "sim/report/decimal_text.h"
#include "sim/report/chart_page.h"
#include "sim/report/html_text.h"
#include "sim/report/json_or_null.h"
#include "sim/report/run_report.h"
#include "sim/schedule/schedule.h"
#include "configfile/input_file.h"
#include "configfile/number_text.h"
#include "sim/sensitivity/uncertain_params.h"
#include "sim/simulate/simulate.h"

namespace bnsim {

using json = nlohmann::ordered_json;

namespace {

double round3(double v) { return std::round(v * 1000) / 1000; }

// One hardware scenario ranked over the grid with the list scheduler's estimate (in process).
struct Ranking {
    double choice_est_ns = 0;
    std::string choice;  // the kernel's decisions with this hardware
    int best = -1;       // grid index
    std::vector<double> est_ns;  // per grid point; NaN: infeasible
};

}  // namespace

SensitivityReport sensitivity(const SensitivityOptions& o) {
    const Overrides base_sets = parse_overrides(o.sets);
    const RunConfig cfg = load_run_config(o.config, base_sets);  // bad config: ConfigError up front
    // An input or memory config the kernel rejects: KernelError (exit 2) up front. Kept: a
    // scenario on the preset's target plans this same trace.
    const GeneratedKernel base_kernel = cfg.generate();
    const Dependents base_deps(base_kernel.trace);
    // Each trace estimated under many scenarios has its instructions' cost rows found once, on
    // the preset's table; a scenario whose table has the same keys (every uncertain parameter
    // changes a number, not a key) prices from them.
    const CostModel preset_cost(cfg.hw);  // read by the grid's threads below (lookups are const)
    const CostRows base_rows = cost_rows(preset_cost, base_kernel.trace);
    const auto params = uncertain_params(cfg.hw, o.ranges);
    std::vector<GridAxis> axes = o.grid;
    // The default grid is tune's: the decisions' legal values for this config's inputs, so the
    // kernel's own pick is always on it (bnsim tune ranks the same grid).
    if (axes.empty()) axes = decision_axes_of(cfg);
    const auto grid = axes.empty() ? std::vector<GridPoint>{} : grid_points(axes, kMaxGridPoints, "--axis");

    // Each grid point's config (parsed once) and its trace on the preset's target, its
    // dependencies derived when a scenario first estimates it: most grid configs are only ever
    // bounded (below), and deriving is most of making a trace.
    std::vector<std::optional<RunConfig>> gcfg(grid.size());
    std::vector<std::optional<GeneratedKernel>> gtrace(grid.size());
    std::vector<std::optional<Dependents>> gdeps(grid.size());
    std::vector<std::vector<CoreStreams>> gstreams(grid.size());  // each trace's, for its lower bounds
    std::vector<CostRows> grows(grid.size());                      // each trace's cost rows
    std::vector<std::once_flag> gderived(grid.size());
    auto deps_of = [&](size_t g) -> const Dependents& {
        std::call_once(gderived[g], [&] {
            ensure_dependencies(gtrace[g]->trace);  // writes only the deps, which bounds do not read
            gdeps[g].emplace(gtrace[g]->trace);
        });
        return *gdeps[g];
    };
    std::vector<std::string> gerror(grid.size());
    // On `jobs` threads (each grid point's config and trace are its own); the first grid value the
    // config rejects, in grid order, is the error (ConfigError: exit 2; parallel_for).
    parallel_for(grid.size(), o.jobs, [&](size_t g) {
        Overrides ov = base_sets;
        ov.insert(ov.end(), grid[g].sets.begin(), grid[g].sets.end());
        OverrideOrigins origins;
        for (const auto& kv : grid[g].sets) origins[kv.first] = o.grid.empty() ? "decision axis" : "--axis";
        gcfg[g] = load_run_config(o.config, ov, origins);
        try {
            gtrace[g] = gcfg[g]->generate(RunConfig::Dependencies::later);
            gstreams[g] = schedule_program_order(gtrace[g]->trace).cores;
            grows[g] = cost_rows(preset_cost, gtrace[g]->trace);
        } catch (const KernelError& e) {
            gerror[g] = e.what();  // infeasible on the preset (e.g. over the SBUF budget)
        }
    });

    // Scenarios: the preset, then each parameter at its low and high end.
    struct Scenario {
        int param = -1;
        bool high = false;
    };
    std::vector<Scenario> sc{Scenario{}};
    for (size_t i = 0; i < params.size(); ++i)
        for (bool hi : {false, true}) sc.push_back({int(i), hi});
    auto hw_of = [&](const Scenario& s) {
        HwConfig hw = cfg.hw;
        if (s.param >= 0) set_uncertain(hw, params[size_t(s.param)], s.high ? params[size_t(s.param)].hi : params[size_t(s.param)].lo);
        return hw;
    };

    // Inside each range too: a discrete-event simulator's response is jagged, so the latency can
    // move more between the ends than at them. Points at a quarter, a half and three quarters of
    // each range (integers rounded; a flag has only its two ends), by full simulation.
    struct Interior {
        size_t param;
        double value;
    };
    std::vector<Interior> interior;
    for (size_t i = 0; i < params.size(); ++i) {
        const auto& p = params[i];
        if (p.kind == ParamKind::boolean) continue;
        std::vector<double> seen{p.lo, p.hi};
        for (double q : {0.25, 0.5, 0.75}) {
            double v = p.lo + q * (p.hi - p.lo);
            if (p.kind == ParamKind::integer) v = std::round(v);
            if (std::find(seen.begin(), seen.end(), v) != seen.end()) continue;
            seen.push_back(v);
            interior.push_back({i, v});
        }
    }
    // The config's own latency and binding units in each scenario, and at each interior point: a
    // full simulation, each in its own child process (forked before the ranking's threads start).
    // A range end (or sample) at the preset's own value is the preset: it takes the base's run and
    // ranking instead of repeating them (12 of the seed shape's 46 ends).
    auto is_base = [&](size_t param, double v) { return v == params[param].value; };
    const size_t n_runs = sc.size() + interior.size();
    std::vector<SimRequest> reqs;
    std::vector<size_t> run_of(n_runs, 0);  // each scenario's and sample's request
    for (size_t si = 0; si < n_runs; ++si) {
        SimRequest r;
        r.config = o.config;
        r.sets = base_sets;
        if (si >= sc.size()) {
            const Interior& in = interior[si - sc.size()];
            if (is_base(in.param, in.value)) continue;
            r.sets.push_back(uncertain_override(params[in.param], in.value));
        } else if (sc[si].param >= 0) {
            const auto& p = params[size_t(sc[si].param)];
            const double v = sc[si].high ? p.hi : p.lo;
            if (is_base(size_t(sc[si].param), v)) continue;
            r.sets.push_back(uncertain_override(p, v));
        }
        run_of[si] = reqs.size();
        reqs.push_back(std::move(r));
    }
    const std::vector<SimOutcome> distinct_runs = run_simulations(reqs, o.jobs, o.timeout_s);
    std::vector<SimOutcome> runs(n_runs);
    for (size_t si = 0; si < n_runs; ++si) runs[si] = distinct_runs[run_of[si]];
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    // The ranking reports the best grid config and, for each on/off axis, the best with it on and
    // with it off. A config sure to estimate above the best of every such group it is in (or of
    // the whole grid, if there is no on/off axis) changes none of them, so it need not be
    // estimated: it ranks as +infinity, and every figure reported is the one estimating all of
    // them gives (a config tied with a best is never left out: it must be strictly above).
    // Configs go smallest trace first (cheap to estimate, and at the seed shape the fastest), so
    // the bests to beat are low early; each first gets a lower bound (the busiest engine's summed
    // cost, estimate_lower_bound_ns), then an estimate that stops once it is above the bound.
    std::vector<std::vector<size_t>> groups_of(grid.size());
    size_t n_groups = 0;
    for (const auto& a : axes) {
        if (!is_on_off(a)) continue;
        for (size_t g = 0; g < grid.size(); ++g) groups_of[g].push_back(n_groups + (grid[g].values.at(a.key) == "true"));
        n_groups += 2;
    }
    if (n_groups == 0) {
        for (auto& gs : groups_of) gs.push_back(0);
        n_groups = 1;
    }
    std::vector<size_t> order(grid.size());
    for (size_t g = 0; g < grid.size(); ++g) order[g] = g;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        const size_t sa = gtrace[a] ? gtrace[a]->trace.size() : SIZE_MAX, sb = gtrace[b] ? gtrace[b]->trace.size() : SIZE_MAX;
        return sa < sb;
    });
    std::vector<Ranking> rank(sc.size());
    auto rank_scenario = [&](size_t si) {
        Ranking& r = rank[si];
        RunConfig c = cfg;
        c.hw = hw_of(sc[si]);
        const bool same_keys = cost_keys_equal(c.hw.costs, cfg.hw.costs);
        r.est_ns.assign(grid.size(), nan);
        try {
            if (c.target() == cfg.target()) {  // the config's own trace holds
                r.choice_est_ns = estimate_latency_ns(c.hw, base_kernel.trace, base_deps, inf,
                                                      same_keys ? &base_rows : nullptr);
                r.choice = grid_label(axes, choice_values(base_kernel.summary, axes));
            } else {
                const GeneratedKernel k = c.generate();
                r.choice_est_ns = estimate_latency_ns(c.hw, k.trace, Dependents(k.trace));
                r.choice = grid_label(axes, choice_values(k.summary, axes));
            }
        } catch (const KernelError& e) {
            r.choice_est_ns = nan;
            r.choice = std::string("none: ") + e.what();
        }
        std::vector<double> group_best(n_groups, inf);
        for (const size_t g : order) {
            try {
                const bool own = c.target() == gcfg[g]->target();  // the grid config's own trace holds
                std::optional<GeneratedKernel> gk;                  // else its trace on this target
                if (own && !gtrace[g]) continue;                    // infeasible on this target too
                if (!own) {
                    RunConfig gc = *gcfg[g];
                    gc.hw = c.hw;
                    gk = gc.generate(RunConfig::Dependencies::later);
                }
                Trace& trace = own ? gtrace[g]->trace : gk->trace;
                double beat = -inf;  // the estimate that would change a reported best
                for (size_t k : groups_of[g]) beat = std::max(beat, group_best[k]);
                std::vector<CoreStreams> made_here;  // a trace made on this target: its streams
                const auto& streams = own ? gstreams[g] : (made_here = schedule_program_order(trace).cores);
                const CostRows* rows = own && same_keys ? &grows[g] : nullptr;
                if (beat < inf && estimate_lower_bound_ns(c.hw, trace, streams, beat, rows) > beat) {
                    r.est_ns[g] = inf;
                } else if (own) {
                    r.est_ns[g] = estimate_latency_ns(c.hw, trace, deps_of(g), beat, rows);
                } else {
                    ensure_dependencies(trace);
                    r.est_ns[g] = estimate_latency_ns(c.hw, trace, Dependents(trace), beat);
                }
                for (size_t k : groups_of[g]) group_best[k] = std::min(group_best[k], r.est_ns[g]);
            } catch (const KernelError&) {
                continue;
            }
        }
        // The best in grid order (the first of equals), as estimating every config finds it.
        for (size_t g = 0; g < grid.size(); ++g)
            if (!std::isnan(r.est_ns[g]) && (r.best < 0 || r.est_ns[g] < r.est_ns[size_t(r.best)])) r.best = int(g);
    };
    // The ranking's scenarios on `jobs` threads of this process (estimates are pure functions of
    // the hardware and the trace); an error in one is rethrown here once every thread is done.
    std::vector<size_t> ranked;  // the scenarios not at the preset's value
    for (size_t si = 0; si < sc.size(); ++si)
        if (si == 0 || run_of[si] != 0) ranked.push_back(si);
    parallel_for(ranked.size(), o.jobs, [&](size_t k) { rank_scenario(ranked[k]); });
    for (size_t si = 1; si < sc.size(); ++si)
        if (run_of[si] == 0) rank[si] = rank[0];
    if (!runs[0].ok) throw std::runtime_error("simulating " + o.config + ": " + runs[0].error);

    auto summarise = [&](size_t si) {
        ScenarioResult j;
        if (!runs[si].ok) {
            j.error = runs[si].error;
        } else {
            j.latency_ns = round3(runs[si].report.latency_ns);
            j.binding = phase_bindings(runs[si].report);
        }
        const Ranking& r = rank[si];
        j.choice = r.choice;
        j.choice_estimate_ns = round3(r.choice_est_ns);
        if (r.best >= 0) {
            const double bl = r.est_ns[size_t(r.best)];
            j.best_config = grid[size_t(r.best)].label;
            j.best_estimate_ns = round3(bl);
            if (!std::isnan(r.choice_est_ns)) j.choice_best = within_tie(r.choice_est_ns, bl, o.tie_pct);
            // Each boolean axis: what `true` saves over `false`, best config against best config.
            for (const auto& a : axes) {
                if (!is_on_off(a)) continue;
                double bt = nan, bf = nan;
                for (size_t g = 0; g < grid.size(); ++g) {
                    if (std::isnan(r.est_ns[g])) continue;
                    double& b = grid[g].values.at(a.key) == "true" ? bt : bf;
                    if (std::isnan(b) || r.est_ns[g] < b) b = r.est_ns[g];
                }
                j.saves_ns.emplace_back(a.key, std::isnan(bt) || std::isnan(bf) ? std::nullopt : std::optional<double>(round3(bf - bt)));
            }
        }
        for (double v : r.est_ns) j.grid_infeasible += std::isnan(v);
        return j;
    };

    SensitivityReport rep;
    rep.config = o.config;
    rep.hardware_file = cfg.hw_file;
    rep.method = "latency and binding units: full simulation (bnsim run) of the config with one parameter at "
                 "each end of its range and at a quarter, a half and three quarters of it (samples); ranking of "
                 "the grid: the list scheduler's estimate (bnsim run --estimate) of every grid config with the "
                 "parameter at each end";
    rep.grid = axes;
    rep.grid_points = grid.size();
    rep.simulations = reqs.size();
    rep.estimates = ranked.size() * (grid.size() + 1);
    rep.threshold_pct = o.threshold_pct;
    rep.tie_pct = o.tie_pct;
    rep.base = summarise(0);
    const ScenarioResult& base = rep.base;
    const double L = *base.latency_ns;
    auto change_of = [&](const std::optional<double>& lat) {
        return lat ? std::optional<double>(std::round((*lat - L) / L * 10000) / 100) : std::nullopt;
    };
    for (size_t i = 0; i < params.size(); ++i) {
        ParamSensitivity p;
        p.at_low = summarise(1 + 2 * i);
        p.at_high = summarise(2 + 2 * i);
        const ScenarioResult &lo = p.at_low, &hi = p.at_high;
        p.name = params[i].name;
        p.unit = params[i].unit;
        p.value = params[i].value;
        p.low = params[i].lo;
        p.high = params[i].hi;
        p.low_why = params[i].lo_why;
        p.high_why = params[i].hi_why;
        p.change_low_pct = change_of(lo.latency_ns);
        p.change_high_pct = change_of(hi.latency_ns);
        // The samples across the range (ends and interior points, in order of value), and the
        // largest move among them and where it happens.
        auto sample = [&](double v, const std::optional<double>& lat, const std::string& err) {
            p.samples.push_back({v, lat, change_of(lat), err});
        };
        sample(params[i].lo, lo.latency_ns, lo.error);
        for (size_t k = 0; k < interior.size(); ++k) {
            if (interior[k].param != i) continue;
            const size_t si = sc.size() + k;
            if (runs[si].ok) sample(interior[k].value, round3(runs[si].report.latency_ns), "");
            else sample(interior[k].value, std::nullopt, runs[si].error);
        }
        sample(params[i].hi, hi.latency_ns, hi.error);
        std::stable_sort(p.samples.begin(), p.samples.end(),
                         [](const RangeSample& a, const RangeSample& b) { return a.value < b.value; });
        for (const auto& smp : p.samples)
            if (smp.change_pct && std::fabs(*smp.change_pct) > p.max_change_pct) {
                p.max_change_pct = std::fabs(*smp.change_pct);
                p.max_change_at = smp.value;
            }
        // Inside the range: the largest move is at neither end.
        p.max_change_inside = p.max_change_at && *p.max_change_at != params[i].lo && *p.max_change_at != params[i].hi;
        p.moves_latency = p.max_change_pct > o.threshold_pct;
        // The decision moves when the config's own choice stops being (or becomes) the best, or
        // when an on/off axis changes sign (residency stops helping).
        bool decision = lo.choice_best != base.choice_best || hi.choice_best != base.choice_best;
        for (const auto& [key, v] : base.saves_ns)
            for (const ScenarioResult* end : {&lo, &hi})
                for (const auto& [ekey, e] : end->saves_ns)
                    if (ekey == key && v && e && ((*v > 0) != (*e > 0))) decision = true;
        p.moves_decision = decision;
        p.binding_changes = lo.binding != base.binding || hi.binding != base.binding;
        rep.params.push_back(std::move(p));
    }
    std::stable_sort(rep.params.begin(), rep.params.end(), [](const ParamSensitivity& a, const ParamSensitivity& b) {
        return a.max_change_pct > b.max_change_pct;
    });
    return rep;
}

namespace {

// What to measure on a trn2 to pin a parameter: a small kernel (bnsim's calibration kernels take
// the same config) and the figure to read.
MeasurementSuggestion suggestion_for(const std::string& name) {
    struct S {
        const char* prefix;
        const char* kernel;
        const char* measure;
    };
    static const S table[] = {
        {"costs.dve.stt.", "vector_op-style microbenchmark: one nki.isa.scalar_tensor_tensor with that op pair, bf16, [128, W] at W = 512, 2048 and 8192",
         "the instruction durations (Neuron Explorer instruction table): the slope over W is cycles_per_elem, 1.04 or 2.08 ns per element tells the two readings of the cost notes apart"},
        {"costs.", "a microbenchmark of that cost row's instruction at three free sizes",
         "the instruction durations: the slope over the free size is its cycles_per_elem"},
        {"dma.min_queue_occupancy_ns", "dma_copy: {partitions: 128, free: 128, dtype: bfloat16, count: 16} (256 B per partition, back to back on one queue)",
         "the stream's duration (profile total_time), as M6: efficiency below the plateau pins the per-DMA queue occupancy"},
        {"dma.descriptor_overhead_ns", "dma_copy: {partitions: 128, free: 128, dtype: bfloat16} (2 KiB per DMA engine)",
         "one DMA engine's transfer (Neuron Explorer DmaPacket end_ts - start_ts), as M7"},
        {"dma.sw_dge_issue_ns", "dma_copy: {partitions: 128, free: 128, dtype: bfloat16, dge: software}",
         "trigger to completion of the DMA (instruction and DmaPacket times), against the same copy with hardware DGE"},
        {"dma.trigger_cycles", "dma_copy: {partitions: 4, free: 16, dtype: bfloat16, count: 16}",
         "the spacing of the DMA trigger instructions on the Sync engine"},
        {"dma.dge_bound_to_issuer", "vector_add: {n: 25600, partitions: 128, free: 2, dtype: float32, dge: hardware} (M4's loop, three DGE DMAs per iteration from the Sync engine)",
         "the spacing of the DMA instructions on the Sync engine (about 600 ns apart if one block generates them all) and the kernel latency"},
        {"dma.merge_contiguous_rows", "dma_copy: {partitions: 128, free: 128, dtype: bfloat16}",
         "the number of DmaPacket records per engine (one merged descriptor or eight rows)"},
        {"hbm.latency_ns", "dma_copy: {partitions: 4, free: 16, dtype: bfloat16}",
         "trigger to completion of a tiny HBM->SBUF copy, minus issue, dispatch and completion"},
        {"hbm.", "dma_copy: {partitions: 128, free: 16384, dtype: bfloat16, count: 16}",
         "sustained HBM->SBUF throughput (hbm_read_bytes / dma_active_time)"},
        {"sbuf.usable_bytes_per_partition", "any NKI kernel allocating one growing SBUF tile",
         "the largest tile the compiler accepts (nl.tile_size.total_available_sbuf_size)"},
        {"sbuf.access_latency_ns", "vector_op: {op: tensor_copy, partitions: 128, free: 1, dtype: float32}",
         "the instruction's duration at W = 1 against the fixed cost"},
        {"sbuf.min_align_bytes", "any NKI kernel allocating odd-sized SBUF tiles", "the addresses the compiler assigns"},
        {"engines.", "vector_op / activation at W = 1024 and 8192 on that engine",
         "instruction durations: the slope over W gives the clock"},
        {"link.", "a sendrecv of 4 KiB and 64 KiB between the two cores of an LNC=2 pair",
         "the sendrecv duration: intercept = latency, slope = bandwidth"},
        {"launch.fixed_ns", "an empty kernel (one 4-partition DMA)", "neuron-bench on-device latency p50 (M5)"},
    };
    for (const auto& s : table)
        if (name.rfind(s.prefix, 0) == 0) return {name, s.kernel, s.measure, 0, ""};
    return {name, "a microbenchmark isolating " + name, "its duration", 0, ""};
}

std::string yesno(const std::optional<bool>& v) { return !v ? "-" : *v ? "yes" : "NO"; }

}  // namespace

std::vector<MeasurementSuggestion> suggest_measurements(const SensitivityReport& report) {
    std::vector<const ParamSensitivity*> ps;
    for (const auto& p : report.params) ps.push_back(&p);
    std::stable_sort(ps.begin(), ps.end(), [](const ParamSensitivity* a, const ParamSensitivity* b) {
        return a->moves_decision && !b->moves_decision;
    });
    std::vector<MeasurementSuggestion> out;
    int rank = 1;
    for (const ParamSensitivity* p : ps) {
        if (!p->moves_decision && !p->moves_latency && !p->binding_changes) continue;
        MeasurementSuggestion s = suggestion_for(p->name);
        s.priority = rank++;
        s.why = p->moves_decision    ? "changes the memory-config decision"
                : p->binding_changes ? "changes the binding unit and moves the latency by " + fixed_decimals(p->max_change_pct, 1) + "%"
                                     : "moves the latency by " + fixed_decimals(p->max_change_pct, 1) + "%";
        out.push_back(std::move(s));
    }
    return out;
}

namespace {


json saves_json(const ScenarioResult& r) {
    json j = json::object();
    for (const auto& [k, v] : r.saves_ns) j[k] = json_or_null(v);
    return j;
}

json scenario_json(const ScenarioResult& r) {
    json j;
    if (!r.latency_ns) j["error"] = r.error;
    j["latency_ns"] = json_or_null(r.latency_ns);
    j["binding"] = r.binding;
    j["choice"] = r.choice;
    j["choice_estimate_ns"] = r.choice_estimate_ns;
    j["best_config"] = json_or_null(r.best_config);
    j["best_estimate_ns"] = json_or_null(r.best_estimate_ns);
    j["choice_best"] = json_or_null(r.choice_best);
    j["saves_ns"] = saves_json(r);
    j["grid_infeasible"] = r.grid_infeasible;
    return j;
}

}  // namespace

json to_json(const SensitivityReport& r) {
    json rep;
    rep["config"] = r.config;
    rep["hardware_file"] = r.hardware_file;
    rep["method"] = r.method;
    json gj = json::array();
    for (const auto& a : r.grid) gj.push_back({{"key", a.key}, {"values", a.values}});
    rep["grid"] = gj;
    rep["grid_points"] = r.grid_points;
    rep["simulations"] = r.simulations;
    rep["estimates"] = r.estimates;
    rep["threshold_pct"] = r.threshold_pct;
    rep["tie_pct"] = r.tie_pct;
    rep["base"] = scenario_json(r.base);
    json ps = json::array();
    for (const auto& p : r.params) {
        json j;
        j["name"] = p.name;
        j["unit"] = p.unit;
        j["value"] = p.value;
        j["low"] = p.low;
        j["high"] = p.high;
        j["low_why"] = p.low_why;
        j["high_why"] = p.high_why;
        j["latency_low_ns"] = json_or_null(p.at_low.latency_ns);
        j["latency_high_ns"] = json_or_null(p.at_high.latency_ns);
        j["change_low_pct"] = json_or_null(p.change_low_pct);
        j["change_high_pct"] = json_or_null(p.change_high_pct);
        j["binding_low"] = p.at_low.binding;
        j["binding_high"] = p.at_high.binding;
        j["choice_low"] = p.at_low.choice;
        j["choice_high"] = p.at_high.choice;
        j["best_config_low"] = json_or_null(p.at_low.best_config);
        j["best_config_high"] = json_or_null(p.at_high.best_config);
        j["choice_best_low"] = json_or_null(p.at_low.choice_best);
        j["choice_best_high"] = json_or_null(p.at_high.choice_best);
        j["saves_low_ns"] = saves_json(p.at_low);
        j["saves_high_ns"] = saves_json(p.at_high);
        if (!p.at_low.latency_ns) j["error_low"] = p.at_low.error;
        if (!p.at_high.latency_ns) j["error_high"] = p.at_high.error;
        json samples = json::array();
        for (const auto& smp : p.samples) {
            json sj{{"value", smp.value}, {"latency_ns", json_or_null(smp.latency_ns)}, {"change_pct", json_or_null(smp.change_pct)}};
            if (!smp.latency_ns) sj["error"] = smp.error;
            samples.push_back(sj);
        }
        j["samples"] = samples;
        j["max_change_pct"] = p.max_change_pct;
        j["max_change_at"] = json_or_null(p.max_change_at);
        j["max_change_inside"] = p.max_change_inside;
        j["moves_latency"] = p.moves_latency;
        j["moves_decision"] = p.moves_decision;
        j["binding_changes"] = p.binding_changes;
        ps.push_back(j);
    }
    rep["params"] = ps;
    if (r.suggest) {
        json sg = json::array();
        for (const auto& s : *r.suggest)
            sg.push_back({{"param", s.param}, {"kernel", s.kernel}, {"measure", s.measure}, {"priority", s.priority}, {"why", s.why}});
        rep["suggest"] = sg;
    }
    return rep;
}

namespace {

std::string us(const std::optional<double>& ns) { return ns ? fixed_decimals(*ns / 1000, 2) : std::string("-"); }
std::string pct(const std::optional<double>& v) { return v ? signed_percent(*v) : std::string("-"); }

const ScenarioResult& at(const ParamSensitivity& p, const std::string& end) { return end == "low" ? p.at_low : p.at_high; }

// "name at low (value)" for every end where pred(param, end) holds, or "" if none.
template <class F>
std::string ends_where(const SensitivityReport& r, F pred) {
    std::string s;
    for (const auto& p : r.params)
        for (const char* end : {"low", "high"})
            if (pred(p, std::string(end))) {
                std::ostringstream v;
                v << (end[0] == 'l' ? p.low : p.high);
                s += (s.empty() ? "" : "; ") + p.name + " at " + end + " (" + v.str() + ")";
            }
    return s;
}

const std::optional<double>* saves_of(const ScenarioResult& r, const std::string& key) {
    for (const auto& [k, v] : r.saves_ns)
        if (k == key) return &v;
    return nullptr;
}

}  // namespace

void print_sensitivity(const SensitivityReport& r, std::ostream& out) {
    const ScenarioResult& b = r.base;
    std::string axes;
    for (const auto& a : r.grid) axes += (axes.empty() ? "" : " x ") + a.key;
    out << "sensitivity " << r.config << ": " << r.params.size()
        << " uncertain parameters, each at both ends of its range and inside it\n"
        << "  latency, binding: full simulation (" << r.simulations
        << " runs: each end, and a quarter, a half and three quarters of each range; a point at the preset's value is the base run)\n"
        << "  memory ranking:   list-scheduler estimate (as bnsim run --estimate) of the " << r.grid_points
        << "-config grid " << axes << " in each case (" << r.estimates << " estimates)\n";
    out << "base        " << us(b.latency_ns) << " us (" << b.binding << "); kernel's choice " << b.choice << "\n";
    if (b.best_config) {
        out << "            estimate " << us(b.choice_estimate_ns) << " us; best grid config " << *b.best_config << " "
            << us(b.best_estimate_ns) << " us; choice is best (within " << fixed_decimals(r.tie_pct, 1)
            << "%): " << yesno(b.choice_best) << "\n";
        for (const auto& [k, v] : b.saves_ns)
            out << "            " << k << "=true saves " << us(v) << " us over false by estimate (the best config with it on against the best with it off)\n";
    }
    out << "\n"
        << std::left << std::setw(56) << "parameter" << std::setw(22) << "range" << std::right << std::setw(10) << "low us"
        << std::setw(8) << "" << std::setw(10) << "high us" << std::setw(8) << "" << "  choice best  saves us (low/high)\n";
    for (const auto& p : r.params) {
        std::ostringstream range;
        range << "[" << p.low << ", " << p.high << "]";
        std::string saves;
        for (const auto& [k, v] : p.at_low.saves_ns) {
            const std::optional<double>* h = saves_of(p.at_high, k);
            saves += (saves.empty() ? "" : ", ") + us(v) + " / " + us(h ? *h : std::nullopt);
        }
        out << std::left << std::setw(56) << ((p.moves_latency ? "* " : "  ") + p.name) << std::setw(22) << range.str()
            << std::right << std::setw(10) << us(p.at_low.latency_ns) << std::setw(8) << pct(p.change_low_pct)
            << std::setw(10) << us(p.at_high.latency_ns) << std::setw(8) << pct(p.change_high_pct) << "  " << std::setw(4)
            << yesno(p.at_low.choice_best) << " / " << std::left << std::setw(4) << yesno(p.at_high.choice_best) << "  "
            << saves << "\n";
        if (p.max_change_inside && p.max_change_pct >= 0.1) {
            std::string across;
            for (const auto& smp : p.samples)
                across += (across.empty() ? "" : ", ") + short_number(smp.value) + ": " + pct(smp.change_pct);
            out << "      largest move inside the range: " << fixed_decimals(p.max_change_pct, 2) << "% at "
                << short_number(*p.max_change_at) << " (" << across << ")\n";
        }
        if (p.binding_changes) out << "      binding: low " << p.at_low.binding << "; high " << p.at_high.binding << "\n";
        if (p.moves_decision)
            out << "      best grid config: low " << p.at_low.best_config.value_or("-") << "; high "
                << p.at_high.best_config.value_or("-") << "\n";
        if (!p.at_low.latency_ns) out << "      error_low: " << p.at_low.error << "\n";
        if (!p.at_high.latency_ns) out << "      error_high: " << p.at_high.error << "\n";
    }
    out << "* moves the latency by more than " << fixed_decimals(r.threshold_pct, 1) << "%\n\nconclusions\n";
    std::string moving;
    for (const auto& p : r.params)
        if (p.moves_latency) moving += (moving.empty() ? "" : ", ") + p.name;
    out << "  moves the latency by more than " << fixed_decimals(r.threshold_pct, 1) << "%: "
        << (moving.empty() ? "none" : moving) << "\n";
    std::string inside;
    for (const auto& p : r.params)
        if (p.max_change_inside && p.max_change_pct >= 0.1)
            inside += (inside.empty() ? "" : ", ") + p.name + " at " + short_number(*p.max_change_at);
    out << "  moves most inside its range (the ends understate it): " << (inside.empty() ? "none" : inside) << "\n";
    const std::string bind =
        ends_where(r, [&](const ParamSensitivity& p, const std::string& e) { return at(p, e).binding != b.binding; });
    out << "  binding (" << b.binding << "): " << (bind.empty() ? "holds at every range end" : "changes at " + bind) << "\n";
    if (b.best_config) {
        const std::string choice = ends_where(
            r, [&](const ParamSensitivity& p, const std::string& e) { return at(p, e).choice_best != b.choice_best; });
        out << "  kernel's memory choice " << (b.choice_best.value_or(false) ? "is" : "is not") << " the best of the grid: "
            << (choice.empty() ? "so at every range end" : "not so at " + choice) << "\n";
        for (const auto& kv : b.saves_ns) {
            if (!kv.second) continue;
            const std::string k = kv.first;
            const double v = *kv.second;
            const bool helps = v > 0;
            double lo = v, hi = v;
            const std::string flips = ends_where(r, [&](const ParamSensitivity& p, const std::string& e) {
                const std::optional<double>* sv = saves_of(at(p, e), k);
                if (!sv || !*sv) return false;
                lo = std::min(lo, **sv);
                hi = std::max(hi, **sv);
                return (**sv > 0) != helps;
            });
            out << "  " << k << "=true " << (helps ? "helps" : "does not help") << " (saves " << us(v) << " us; "
                << us(lo) << " to " << us(hi) << " us over the range ends): "
                << (flips.empty() ? "so at every range end" : "not so at " + flips) << "\n";
        }
    }
    if (r.suggest) {
        out << "\nmeasurements that would pin them, in priority order:\n";
        for (const auto& s : *r.suggest)
            out << "  " << s.priority << ". " << s.param << " (" << s.why << ")\n     run " << s.kernel << "\n     measure "
                << s.measure << "\n";
    }
}

std::string sensitivity_html(const SensitivityReport& r) {
    std::ostringstream h;
    h << "<!DOCTYPE html><html><head><meta charset='utf-8'><title>bnsim sensitivity</title>"
      << "<style>body{font-family:sans-serif;margin:2em}pre{font-size:12px;overflow-x:auto}</style></head><body><h1>bnsim sensitivity</h1>";
    const double L = r.base.latency_ns.value_or(0);
    h << "<p>" << html_escape(r.config) << ": base latency " << fixed_decimals(L / 1000, 2) << " \u00b5s.</p>";
    // A tornado chart: per estimate, the latencies its range spans (ends and inside samples),
    // each end labelled with the parameter's value and the change it makes.
    json bars = json::array();
    for (const auto& p : r.params) {
        std::optional<std::pair<double, const RangeSample*>> lo, hi;
        for (const auto& s : p.samples) {
            if (!s.latency_ns) continue;
            if (!lo || *s.latency_ns < lo->first) lo = {{*s.latency_ns, &s}};
            if (!hi || *s.latency_ns > hi->first) hi = {{*s.latency_ns, &s}};
        }
        if (!lo) continue;
        auto end_text = [&](const RangeSample& s) {
            return short_number(s.value) + (p.unit.empty() ? "" : " " + p.unit) + ": " +
                   (s.change_pct ? signed_percent(*s.change_pct) : std::string("-"));
        };
        const double low_us = std::min(lo->first, L) / 1000, high_us = std::max(hi->first, L) / 1000;
        bars.push_back({{"label", p.name + (p.moves_decision ? " (decision)" : "")},
                        {"low", low_us},
                        {"high", high_us},
                        {"low_text", lo->first < L ? end_text(*lo->second) : ""},
                        {"high_text", hi->first > L ? end_text(*hi->second) : lo->first < L ? "" : "no change"},
                        {"colour", p.moves_decision ? "#d62728" : p.moves_latency ? "#1f77b4" : "#9ecae1"},
                        {"tip", p.name + " over " + short_number(p.low) + " to " + short_number(p.high) +
                                    (p.unit.empty() ? "" : " " + p.unit) + ": " + fixed_decimals(lo->first / 1000, 2) +
                                    " to " + fixed_decimals(hi->first / 1000, 2) + " \u00b5s"}});
    }
    if (!bars.empty()) {
        json spec{{"kind", "ranges"},
                  {"title", "Latency over each estimate's range"},
                  {"note", "dark blue: moves the latency more than " + fixed_decimals(r.threshold_pct, 0) +
                               "%; red: also changes the kernel's decision; light: neither. Dashed: the base latency."},
                  {"x", {{"title", "latency (\u00b5s)"}}},
                  {"base", {{"value", L / 1000}, {"label", "base " + fixed_decimals(L / 1000, 2) + " \u00b5s"}}},
                  {"bars", bars}};
        write_chart(h, spec, 1000, 90 + 26 * int(bars.size()));
    }
    std::ostringstream t;
    print_sensitivity(r, t);
    h << "<pre>" << html_escape(t.str()) << "</pre>";
    write_chart_scripts(h);
    h << "</body></html>\n";
    return h.str();
}

}  // namespace bnsim
