#include "sim/sensitivity/sensitivity.h"

#include <algorithm>
#include <exception>
#include <cmath>
#include <iomanip>
#include <map>
#include <sstream>

#include <limits>
#include <optional>

#include "configfile/config_error.h"
#include "kernels/kernel_entry.h"
#include "sim/decision/decision_grid.h"
#include "sim/runner/parallel_for.h"
#include "sim/runner/simulation_runner.h"
#include "sim/report/decimal_text.h"
#include "sim/report/html_text.h"
#include "sim/report/run_report.h"
#include "configfile/input_file.h"
#include "configfile/number_text.h"
#include "sim/sensitivity/uncertain_params.h"
#include "sim/simulate.h"

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

json sensitivity(const SensitivityOptions& o) {
    const Overrides base_sets = parse_overrides(o.sets);
    const RunConfig cfg = load_run_config(o.config, base_sets);  // bad config: ConfigError up front
    cfg.generate();  // an input or memory config the kernel rejects: KernelError (exit 2) up front
    const auto params = uncertain_params(cfg.hw, o.ranges);
    std::vector<GridAxis> axes = o.grid;
    // The default grid is tune's: the decisions' legal values for this config's inputs, so the
    // kernel's own pick is always on it (bnsim tune ranks the same grid).
    if (axes.empty()) axes = decision_axes_of(cfg);
    const auto grid = axes.empty() ? std::vector<GridPoint>{} : grid_points(axes, kMaxGridPoints, "--axis");

    // Each grid point's config (parsed once) and its trace on the preset's target.
    std::vector<std::optional<RunConfig>> gcfg(grid.size());
    std::vector<std::optional<GeneratedKernel>> gtrace(grid.size());
    std::vector<std::string> gerror(grid.size());
    for (size_t g = 0; g < grid.size(); ++g) {
        Overrides ov = base_sets;
        ov.insert(ov.end(), grid[g].sets.begin(), grid[g].sets.end());
        OverrideOrigins origins;
        for (const auto& kv : grid[g].sets) origins[kv.first] = o.grid.empty() ? "decision axis" : "--axis";
        gcfg[g] = load_run_config(o.config, ov, origins);  // a grid value the config rejects: ConfigError (exit 2)
        try {
            gtrace[g] = gcfg[g]->generate();
        } catch (const KernelError& e) {
            gerror[g] = e.what();  // infeasible on the preset (e.g. over the SBUF budget)
        }
    }

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
    const size_t n_runs = sc.size() + interior.size();
    std::vector<SimRequest> reqs(n_runs);
    for (size_t si = 0; si < n_runs; ++si) {
        reqs[si].config = o.config;
        reqs[si].sets = base_sets;
        if (si >= sc.size()) {
            const Interior& in = interior[si - sc.size()];
            reqs[si].sets.push_back(uncertain_override(params[in.param], in.value));
        } else if (sc[si].param >= 0) {
            const auto& p = params[size_t(sc[si].param)];
            reqs[si].sets.push_back(uncertain_override(p, sc[si].high ? p.hi : p.lo));
        }
    }
    const std::vector<SimOutcome> runs = run_simulations(reqs, o.jobs, o.timeout_s);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    std::vector<Ranking> rank(sc.size());
    auto rank_scenario = [&](size_t si) {
        Ranking& r = rank[si];
        RunConfig c = cfg;
        c.hw = hw_of(sc[si]);
        r.est_ns.assign(grid.size(), nan);
        try {
            const GeneratedKernel k = c.generate();
            r.choice_est_ns = estimate(c.hw, k.trace).latency_ns;
            r.choice = grid_label(axes, choice_values(k.summary, axes));
        } catch (const KernelError& e) {
            r.choice_est_ns = nan;
            r.choice = std::string("none: ") + e.what();
        }
        for (size_t g = 0; g < grid.size(); ++g) {
            try {
                if (c.target() == gcfg[g]->target()) {  // the grid config's own trace holds
                    if (!gtrace[g]) continue;                  // infeasible on this target too
                    r.est_ns[g] = estimate(c.hw, gtrace[g]->trace).latency_ns;
                } else {
                    RunConfig gc = *gcfg[g];
                    gc.hw = c.hw;
                    r.est_ns[g] = estimate(gc.hw, gc.generate().trace).latency_ns;
                }
            } catch (const KernelError&) {
                continue;
            }
            if (r.best < 0 || r.est_ns[g] < r.est_ns[size_t(r.best)]) r.best = int(g);
        }
    };
    // The ranking's scenarios on `jobs` threads of this process (estimates are pure functions of
    // the hardware and the trace); an error in one is rethrown here once every thread is done.
    std::vector<std::exception_ptr> rank_error(sc.size());
    parallel_for(sc.size(), o.jobs, [&](size_t si) {
        try {
            rank_scenario(si);
        } catch (...) {
            rank_error[si] = std::current_exception();
        }
    });
    for (const auto& e : rank_error)
        if (e) std::rethrow_exception(e);
    if (!runs[0].ok) throw std::runtime_error("simulating " + o.config + ": " + runs[0].error);

    auto summarise = [&](size_t si) {
        json j;
        if (!runs[si].ok) {
            j["error"] = runs[si].error;
            j["latency_ns"] = nullptr;
            j["binding"] = "";
        } else {
            j["latency_ns"] = round3(runs[si].report.latency_ns);
            j["binding"] = phase_bindings(runs[si].report);
        }
        const Ranking& r = rank[si];
        j["choice"] = r.choice;
        j["choice_estimate_ns"] = round3(r.choice_est_ns);
        if (r.best >= 0) {
            const double bl = r.est_ns[size_t(r.best)];
            j["best_config"] = grid[size_t(r.best)].label;
            j["best_estimate_ns"] = round3(bl);
            j["choice_best"] = std::isnan(r.choice_est_ns) ? json(nullptr) : json(within_tie(r.choice_est_ns, bl, o.tie_pct));
            // Each boolean axis: what `true` saves over `false`, best config against best config.
            json saves = json::object();
            for (const auto& a : axes) {
                if (!is_on_off(a)) continue;
                double bt = nan, bf = nan;
                for (size_t g = 0; g < grid.size(); ++g) {
                    if (std::isnan(r.est_ns[g])) continue;
                    double& b = grid[g].values.at(a.key) == "true" ? bt : bf;
                    if (std::isnan(b) || r.est_ns[g] < b) b = r.est_ns[g];
                }
                saves[a.key] = std::isnan(bt) || std::isnan(bf) ? json(nullptr) : json(round3(bf - bt));
            }
            j["saves_ns"] = saves;
        } else {
            j["best_config"] = nullptr;
            j["best_estimate_ns"] = nullptr;
            j["choice_best"] = nullptr;
            j["saves_ns"] = json::object();
        }
        int infeasible = 0;
        for (double v : r.est_ns) infeasible += std::isnan(v);
        j["grid_infeasible"] = infeasible;
        return j;
    };

    json rep;
    rep["config"] = o.config;
    rep["hardware_file"] = cfg.hw_file;
    rep["method"] = "latency and binding units: full simulation (bnsim run) of the config with one parameter at "
                    "each end of its range and at a quarter, a half and three quarters of it (samples); ranking of "
                    "the grid: the list scheduler's estimate (bnsim run --estimate) of every grid config with the "
                    "parameter at each end";
    json gj = json::array();
    for (const auto& a : axes) gj.push_back({{"key", a.key}, {"values", a.values}});
    rep["grid"] = gj;
    rep["grid_points"] = grid.size();
    rep["simulations"] = n_runs;
    rep["estimates"] = sc.size() * (grid.size() + 1);
    rep["threshold_pct"] = o.threshold_pct;
    rep["tie_pct"] = o.tie_pct;
    const json base = summarise(0);
    rep["base"] = base;
    const double L = base["latency_ns"].get<double>();
    std::vector<json> ps;
    for (size_t i = 0; i < params.size(); ++i) {
        const json lo = summarise(1 + 2 * i), hi = summarise(2 + 2 * i);
        json p;
        p["name"] = params[i].name;
        p["unit"] = params[i].unit;
        p["value"] = params[i].value;
        p["low"] = params[i].lo;
        p["high"] = params[i].hi;
        p["low_why"] = params[i].lo_why;
        p["high_why"] = params[i].hi_why;
        p["latency_low_ns"] = lo["latency_ns"];
        p["latency_high_ns"] = hi["latency_ns"];
        auto change = [&](const json& end) {
            return end["latency_ns"].is_null() ? json(nullptr)
                                               : json(std::round((end["latency_ns"].get<double>() - L) / L * 10000) / 100);
        };
        p["change_low_pct"] = change(lo);
        p["change_high_pct"] = change(hi);
        p["binding_low"] = lo["binding"];
        p["binding_high"] = hi["binding"];
        p["choice_low"] = lo["choice"];
        p["choice_high"] = hi["choice"];
        p["best_config_low"] = lo["best_config"];
        p["best_config_high"] = hi["best_config"];
        p["choice_best_low"] = lo["choice_best"];
        p["choice_best_high"] = hi["choice_best"];
        p["saves_low_ns"] = lo["saves_ns"];
        p["saves_high_ns"] = hi["saves_ns"];
        for (const auto* end : {&lo, &hi})
            if (end->contains("error")) p[end == &lo ? "error_low" : "error_high"] = (*end)["error"];
        // The samples across the range (ends and interior points, in order of value), and the
        // largest move among them and where it happens.
        json samples = json::array();
        auto sample = [&](double v, const json& lat, const json& err) {
            json s{{"value", v}, {"latency_ns", lat}, {"change_pct", nullptr}};
            if (!lat.is_null()) s["change_pct"] = std::round((lat.get<double>() - L) / L * 10000) / 100;
            if (!err.is_null()) s["error"] = err;
            samples.push_back(s);
        };
        sample(params[i].lo, lo["latency_ns"], lo.contains("error") ? lo["error"] : json(nullptr));
        for (size_t k = 0; k < interior.size(); ++k) {
            if (interior[k].param != i) continue;
            const size_t si = sc.size() + k;
            json lat = nullptr, err = nullptr;
            if (runs[si].ok) lat = round3(runs[si].report.latency_ns);
            else err = runs[si].error;
            sample(interior[k].value, lat, err);
        }
        sample(params[i].hi, hi["latency_ns"], hi.contains("error") ? hi["error"] : json(nullptr));
        std::stable_sort(samples.begin(), samples.end(),
                         [](const json& a, const json& b) { return a["value"].get<double>() < b["value"].get<double>(); });
        double m = 0;
        json at = nullptr;
        for (const auto& s : samples)
            if (!s["change_pct"].is_null() && std::fabs(s["change_pct"].get<double>()) > m) {
                m = std::fabs(s["change_pct"].get<double>());
                at = s["value"];
            }
        p["samples"] = samples;
        p["max_change_pct"] = m;
        p["max_change_at"] = at;
        // Inside the range: the largest move is at neither end.
        p["max_change_inside"] = !at.is_null() && at != json(params[i].lo) && at != json(params[i].hi);
        p["moves_latency"] = m > o.threshold_pct;
        // The decision moves when the config's own choice stops being (or becomes) the best, or
        // when an on/off axis changes sign (residency stops helping).
        bool decision = lo["choice_best"] != base["choice_best"] || hi["choice_best"] != base["choice_best"];
        for (const auto& [key, v] : base["saves_ns"].items())
            for (const auto* end : {&lo, &hi}) {
                const json& e = (*end)["saves_ns"].contains(key) ? (*end)["saves_ns"][key] : json(nullptr);
                if (v.is_null() || e.is_null()) continue;
                if ((v.get<double>() > 0) != (e.get<double>() > 0)) decision = true;
            }
        p["moves_decision"] = decision;
        p["binding_changes"] = lo["binding"] != base["binding"] || hi["binding"] != base["binding"];
        ps.push_back(p);
    }
    std::stable_sort(ps.begin(), ps.end(), [](const json& a, const json& b) {
        return a["max_change_pct"].get<double>() > b["max_change_pct"].get<double>();
    });
    rep["params"] = ps;
    return rep;
}

namespace {

// What to measure on a trn2 to pin a parameter: a small kernel (bnsim's calibration kernels take
// the same config) and the figure to read.
json suggestion_for(const std::string& name) {
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
        if (name.rfind(s.prefix, 0) == 0) return {{"param", name}, {"kernel", s.kernel}, {"measure", s.measure}};
    return {{"param", name}, {"kernel", "a microbenchmark isolating " + name}, {"measure", "its duration"}};
}

std::string yesno(const json& v) { return v.is_null() ? "-" : v.get<bool>() ? "yes" : "NO"; }

}  // namespace

json suggest_measurements(const json& report) {
    std::vector<json> ps(report["params"].begin(), report["params"].end());
    std::stable_sort(ps.begin(), ps.end(), [](const json& a, const json& b) {
        return a["moves_decision"].get<bool>() && !b["moves_decision"].get<bool>();
    });
    json out = json::array();
    int rank = 1;
    for (const auto& p : ps) {
        if (!p["moves_decision"].get<bool>() && !p["moves_latency"].get<bool>() && !p["binding_changes"].get<bool>()) continue;
        json s = suggestion_for(p["name"]);
        s["priority"] = rank++;
        s["why"] = p["moves_decision"].get<bool>() ? "changes the memory-config decision"
                   : p["binding_changes"].get<bool>()
                       ? "changes the binding unit and moves the latency by " + fixed_decimals(p["max_change_pct"].get<double>(), 1) + "%"
                       : "moves the latency by " + fixed_decimals(p["max_change_pct"].get<double>(), 1) + "%";
        out.push_back(s);
    }
    return out;
}

namespace {

std::string us(const json& ns) { return ns.is_null() ? std::string("-") : fixed_decimals(ns.get<double>() / 1000, 2); }
std::string pct(const json& v) {
    if (v.is_null()) return "-";
    return signed_percent(v.get<double>());
}
std::string text_or(const json& v, const char* dflt) { return v.is_string() ? v.get<std::string>() : std::string(dflt); }

// "name at low (value)" for every end where pred(end) holds, or "" if none.
template <class F>
std::string ends_where(const json& r, F pred) {
    std::string s;
    for (const auto& p : r["params"])
        for (const char* end : {"low", "high"})
            if (pred(p, std::string(end))) {
                std::ostringstream v;
                v << p[end].get<double>();
                s += (s.empty() ? "" : "; ") + p["name"].get<std::string>() + " at " + end + " (" + v.str() + ")";
            }
    return s;
}

}  // namespace

void print_sensitivity(const json& r, std::ostream& out) {
    const json& b = r["base"];
    std::string axes;
    for (const auto& a : r["grid"]) axes += (axes.empty() ? "" : " x ") + a["key"].get<std::string>();
    out << "sensitivity " << r["config"].get<std::string>() << ": " << r["params"].size()
        << " uncertain parameters, each at both ends of its range and inside it\n"
        << "  latency, binding: full simulation (" << r["simulations"].get<int>()
        << " runs: each end, and a quarter, a half and three quarters of each range)\n"
        << "  memory ranking:   list-scheduler estimate (as bnsim run --estimate) of the " << r["grid_points"].get<int>()
        << "-config grid " << axes << " in each case (" << r["estimates"].get<int>() << " estimates)\n";
    out << "base        " << us(b["latency_ns"]) << " us (" << b["binding"].get<std::string>() << "); kernel's choice "
        << b["choice"].get<std::string>() << "\n";
    if (!b["best_config"].is_null()) {
        out << "            estimate " << us(b["choice_estimate_ns"]) << " us; best grid config " << b["best_config"].get<std::string>()
            << " " << us(b["best_estimate_ns"]) << " us; choice is best (within " << fixed_decimals(r["tie_pct"].get<double>(), 1)
            << "%): " << yesno(b["choice_best"]) << "\n";
        for (const auto& [k, v] : b["saves_ns"].items())
            out << "            " << k << "=true saves " << us(v) << " us over false by estimate (the best config with it on against the best with it off)\n";
    }
    out << "\n"
        << std::left << std::setw(56) << "parameter" << std::setw(22) << "range" << std::right << std::setw(10) << "low us"
        << std::setw(8) << "" << std::setw(10) << "high us" << std::setw(8) << "" << "  choice best  saves us (low/high)\n";
    for (const auto& p : r["params"]) {
        std::ostringstream range;
        range << "[" << p["low"].get<double>() << ", " << p["high"].get<double>() << "]";
        std::string saves;
        for (const auto& [k, v] : p["saves_low_ns"].items()) {
            const json& h = p["saves_high_ns"].contains(k) ? p["saves_high_ns"][k] : json(nullptr);
            saves += (saves.empty() ? "" : ", ") + us(v) + " / " + us(h);
        }
        out << std::left << std::setw(56) << ((p["moves_latency"].get<bool>() ? "* " : "  ") + p["name"].get<std::string>())
            << std::setw(22) << range.str() << std::right << std::setw(10) << us(p["latency_low_ns"]) << std::setw(8)
            << pct(p["change_low_pct"]) << std::setw(10) << us(p["latency_high_ns"]) << std::setw(8) << pct(p["change_high_pct"])
            << "  " << std::setw(4) << yesno(p["choice_best_low"]) << " / " << std::left << std::setw(4)
            << yesno(p["choice_best_high"]) << "  " << saves << "\n";
        if (p["max_change_inside"].get<bool>() && p["max_change_pct"].get<double>() >= 0.1) {
            std::string across;
            for (const auto& s : p["samples"])
                across += (across.empty() ? "" : ", ") + short_number(s["value"].get<double>()) + ": " + pct(s["change_pct"]);
            out << "      largest move inside the range: " << fixed_decimals(p["max_change_pct"].get<double>(), 2) << "% at "
                << short_number(p["max_change_at"].get<double>()) << " (" << across << ")\n";
        }
        if (p["binding_changes"].get<bool>())
            out << "      binding: low " << p["binding_low"].get<std::string>() << "; high " << p["binding_high"].get<std::string>() << "\n";
        if (p["moves_decision"].get<bool>())
            out << "      best grid config: low " << text_or(p["best_config_low"], "-") << "; high "
                << text_or(p["best_config_high"], "-") << "\n";
        for (const char* e : {"error_low", "error_high"})
            if (p.contains(e)) out << "      " << e << ": " << p[e].get<std::string>() << "\n";
    }
    out << "* moves the latency by more than " << fixed_decimals(r["threshold_pct"].get<double>(), 1) << "%\n\nconclusions\n";
    std::string moving;
    for (const auto& p : r["params"])
        if (p["moves_latency"].get<bool>()) moving += (moving.empty() ? "" : ", ") + p["name"].get<std::string>();
    out << "  moves the latency by more than " << fixed_decimals(r["threshold_pct"].get<double>(), 1) << "%: "
        << (moving.empty() ? "none" : moving) << "\n";
    std::string inside;
    for (const auto& p : r["params"])
        if (p["max_change_inside"].get<bool>() && p["max_change_pct"].get<double>() >= 0.1)
            inside += (inside.empty() ? "" : ", ") + p["name"].get<std::string>() + " at " +
                      short_number(p["max_change_at"].get<double>());
    out << "  moves most inside its range (the ends understate it): " << (inside.empty() ? "none" : inside) << "\n";
    const std::string bind = ends_where(r, [&](const json& p, const std::string& e) { return p["binding_" + e] != b["binding"]; });
    out << "  binding (" << b["binding"].get<std::string>() << "): "
        << (bind.empty() ? "holds at every range end" : "changes at " + bind) << "\n";
    if (!b["best_config"].is_null()) {
        const std::string choice = ends_where(r, [&](const json& p, const std::string& e) {
            return p["choice_best_" + e] != b["choice_best"];
        });
        out << "  kernel's memory choice " << (b["choice_best"].get<bool>() ? "is" : "is not") << " the best of the grid: "
            << (choice.empty() ? "so at every range end" : "not so at " + choice) << "\n";
        for (const auto& [key, v] : b["saves_ns"].items()) {
            if (v.is_null()) continue;
            const std::string k = key;  // C++17 lambdas cannot capture a structured binding (clang refuses)
            const bool helps = v.get<double>() > 0;
            double lo = v.get<double>(), hi = lo;
            const std::string flips = ends_where(r, [&](const json& p, const std::string& e) {
                const json& s = p["saves_" + e + "_ns"];
                if (!s.contains(k) || s[k].is_null()) return false;
                lo = std::min(lo, s[k].get<double>());
                hi = std::max(hi, s[k].get<double>());
                return (s[k].get<double>() > 0) != helps;
            });
            out << "  " << k << "=true " << (helps ? "helps" : "does not help") << " (saves " << us(v) << " us; "
                << us(lo) << " to " << us(hi) << " us over the range ends): "
                << (flips.empty() ? "so at every range end" : "not so at " + flips) << "\n";
        }
    }
    if (r.contains("suggest")) {
        out << "\nmeasurements that would pin them, in priority order:\n";
        for (const auto& s : r["suggest"])
            out << "  " << s["priority"].get<int>() << ". " << s["param"].get<std::string>() << " (" << s["why"].get<std::string>()
                << ")\n     run " << s["kernel"].get<std::string>() << "\n     measure " << s["measure"].get<std::string>() << "\n";
    }
}

std::string sensitivity_html(const json& r) {
    std::ostringstream h;
    h << "<!DOCTYPE html><html><head><meta charset='utf-8'><title>bnsim sensitivity</title>"
      << "<style>body{font-family:sans-serif;margin:2em}</style></head><body><h1>bnsim sensitivity</h1>";
    const double L = r["base"]["latency_ns"].get<double>();
    double span = 1e-9;
    for (const auto& p : r["params"])
        span = std::max(span, p["max_change_pct"].get<double>());
    const int W = 960, left = 400, row = 22, mid = left + (W - left) / 2;
    const int H = row * int(r["params"].size()) + 50;
    h << "<p>" << r["config"].get<std::string>() << ": base latency " << fixed_decimals(L / 1000, 2)
      << " us. Bars: latency change at the low (blue) and high (orange) end of each estimate's range.</p>";
    h << "<svg xmlns='http://www.w3.org/2000/svg' width='" << W << "' height='" << H << "'>";
    h << "<line x1='" << mid << "' y1='10' x2='" << mid << "' y2='" << H - 30 << "' stroke='#333'/>";
    int y = 15;
    const double scale = (W - left) / 2.0 / span;
    for (const auto& p : r["params"]) {
        h << "<text x='" << left - 6 << "' y='" << y + 13 << "' font-size='12' text-anchor='end'>" << p["name"].get<std::string>()
          << (p["moves_decision"].get<bool>() ? " (decision)" : "") << "</text>";
        for (const char* end : {"low", "high"}) {
            const json& cj = p[std::string("change_") + end + "_pct"];
            const double c = cj.is_null() ? 0 : cj.get<double>();
            const double x0 = c < 0 ? mid + c * scale : mid, w = std::fabs(c) * scale;
            h << "<rect x='" << fixed_decimals(x0, 1) << "' y='" << y + (end[0] == 'l' ? 2 : 10) << "' width='" << fixed_decimals(std::max(w, 0.5), 1)
              << "' height='8' fill='" << (end[0] == 'l' ? "#1f77b4" : "#ff7f0e") << "'><title>" << end << " end: "
              << fixed_decimals(c, 2) << "%</title></rect>";
        }
        y += row;
    }
    h << "<text x='" << mid << "' y='" << H - 10 << "' font-size='11' text-anchor='middle'>latency change, +/- " << fixed_decimals(span, 1)
      << "% full scale</text></svg>";
    std::ostringstream t;
    print_sensitivity(r, t);
    h << "<pre>" << html_escape(t.str()) << "</pre></body></html>\n";
    return h.str();
}

}  // namespace bnsim
