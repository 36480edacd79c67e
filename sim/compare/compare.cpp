#include "sim/compare/compare.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "sim/compare/stats.h"
#include "sim/simulate/interval_union.h"
#include "sim/report/json_or_null.h"
#include "sim/report/phase_window.h"

namespace bnsim {

using json = nlohmann::ordered_json;

namespace {

double round_to(double v, double step) { return std::round(v / step) * step; }

}  // namespace

PointsComparison compare_points(const MeasuredSet& set, const std::vector<Prediction>& pred) {
    PointsComparison c;
    c.measured_file = set.file;
    c.format = set.format;
    std::vector<double> meas, predv, errs;
    std::map<std::string, int> metrics;
    for (const auto& p : set.points) ++metrics[p.metric];
    // Best config and rank correlation only make sense over points measuring the same thing.
    if (metrics.size() == 1) c.rank_metric = metrics.begin()->first;
    else if (metrics.count("latency_ns")) c.rank_metric = "latency_ns";
    double max_abs = -1;
    int best_m = -1, best_p = -1;
    double best_mv = 0, best_pv = 0;
    for (size_t i = 0; i < set.points.size(); ++i) {
        const MeasuredPoint& p = set.points[i];
        const Prediction& r = pred[i];
        PointComparison pc;
        pc.id = p.id;
        pc.line = p.line;
        pc.keys = p.sets;
        pc.config = p.config;
        pc.metric = p.metric;
        pc.measured = p.measured;
        if (!r.ok) {
            pc.error = r.error;
            c.failed.push_back(std::move(pc));
            continue;
        }
        pc.predicted = round_to(r.value, 1e-6);
        if (metric_is_ns(p.metric)) {
            pc.measured_us = p.measured / 1e3;
            pc.predicted_us = round_to(r.value / 1e3, 1e-6);
        }
        pc.percentiles_us = p.percentiles_us;
        const double e = error_pct(p.measured, r.value);
        pc.error_pct = round_to(e, 1e-4);
        pc.engine_busy_ns = r.engine_busy_ns;
        c.points.push_back(std::move(pc));
        errs.push_back(std::fabs(e));
        if (std::fabs(e) > max_abs) {
            max_abs = std::fabs(e);
            c.max_error_point = p.id;
            c.max_error_pct = round_to(e, 1e-4);
        }
        if (p.metric == c.rank_metric) {
            meas.push_back(p.measured);
            predv.push_back(r.value);
            if (best_m < 0 || p.measured < best_mv) best_m = int(i), best_mv = p.measured;
            if (best_p < 0 || r.value < best_pv) best_p = int(i), best_pv = r.value;
        }
    }
    if (!errs.empty()) {
        double sum = 0;
        for (double e : errs) sum += e;
        c.mape_pct = round_to(sum / double(errs.size()), 1e-4);
    }
    if (const auto rho = spearman(meas, predv)) c.spearman = round_to(*rho, 1e-6);
    // Per kernel family and metric, in the order the families first appear.
    std::vector<std::pair<std::string, std::string>> order;
    std::map<std::pair<std::string, std::string>, std::pair<std::vector<double>, std::vector<double>>> fam;
    for (size_t i = 0; i < set.points.size(); ++i) {
        const MeasuredPoint& p = set.points[i];
        if (p.kernel.empty() || !pred[i].ok) continue;
        const auto key = std::make_pair(p.kernel, p.metric);
        if (!fam.count(key)) order.push_back(key);
        fam[key].first.push_back(p.measured);
        fam[key].second.push_back(pred[i].value);
    }
    for (const auto& key : order) {
        const auto& [m, pv] = fam[key];
        if (m.size() < 2) continue;
        KernelRanking k;
        k.kernel = key.first;
        k.metric = key.second;
        k.points = m.size();
        if (const auto rho = spearman(m, pv)) {
            k.spearman = round_to(*rho, 1e-6);
            k.same_order = *k.spearman == 1.0;
        }
        c.kernels.push_back(k);
    }
    if (meas.size() >= 2) {
        c.measured_best = set.points[size_t(best_m)].id;
        c.predicted_best = set.points[size_t(best_p)].id;
        c.best_config_agrees = best_m == best_p;
    }
    return c;
}

namespace {

// bnsim's source locations name the phase: "function:phaseN.step" is phase N and
// "function:step" (a letter first) is the setup, phase 0. A real location ("kernel.py:42") has
// none. Returns the phase and its name ("FUNCTION:phase2", "FUNCTION:setup").
std::optional<std::pair<int, std::string>> phase_of(const std::string& loc) {
    const auto colon = loc.find(':');
    if (colon == std::string::npos || colon + 1 >= loc.size()) return std::nullopt;
    const std::string fn = loc.substr(0, colon);
    const auto dot = loc.find('.', colon);
    const std::string step = loc.substr(colon + 1, dot == std::string::npos ? std::string::npos : dot - colon - 1);
    if (step.size() > 5 && step.rfind("phase", 0) == 0 &&
        std::all_of(step.begin() + 5, step.end(), [](char c) { return c >= '0' && c <= '9'; }) && step.size() < 12)
        return std::make_pair(std::stoi(step.substr(5)), fn + ":" + step);
    if (dot == std::string::npos && std::isalpha(static_cast<unsigned char>(step[0])))
        return std::make_pair(0, fn + ":setup");
    return std::nullopt;
}

// Every profile's phase windows by the one rule (sim/report/phase_window.h), over its
// instructions and, with `transfers`, its DMA transfers (their data's arrival ends a phase).
std::vector<std::pair<std::string, PhaseWindow>> phase_windows_of(const Profile& pr, bool transfers) {
    PhaseWindows w;
    std::map<int, std::string> names;
    auto add = [&](const std::string& loc, double s, double e) {
        if (const auto ph = phase_of(loc)) {
            names.emplace(ph->first, ph->second);
            w.add(ph->first, s, e);
        }
    };
    for (const auto& i : pr.instructions) add(i.nki_source_location, i.start_ns, i.end_ns);
    if (transfers)
        for (const auto& d : pr.dma_packets) add(d.nki_source_location, d.start_ns, d.end_ns);
    std::vector<std::pair<std::string, PhaseWindow>> out;  // in phase order
    for (const auto& x : w.windows()) out.emplace_back(names.at(x.phase), x);
    return out;
}

bool transfers_named(const Profile& p) {
    return !p.dma_packets.empty() && std::all_of(p.dma_packets.begin(), p.dma_packets.end(), [](const ProfileDmaPacket& d) {
        return !d.nki_source_location.empty();
    });
}

double engine_busy(const Profile& p, const std::string& engine) {
    if (auto v = p.number(engine + "_engine_active_time")) return *v * 1e9;
    double s = 0;
    for (const auto& i : p.instructions)
        if (engine_key(i.engine) == engine) s += i.duration_ns;
    return s;
}

double dma_busy(const Profile& p) {
    if (auto v = p.number("dma_active_time")) return *v * 1e9;
    std::vector<std::pair<double, double>> v;
    for (const auto& d : p.dma_packets) v.emplace_back(d.start_ns, d.end_ns);
    return interval_union_length(std::move(v));
}

DurationStats dist(const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return {v.size(), round_to(s / double(v.size()), 1e-3), round_to(quantile(v, 0.5), 1e-3), round_to(quantile(v, 0.9), 1e-3)};
}

MeasuredPredicted pair_row(const std::string& name, double m, double p) {
    MeasuredPredicted r{name, round_to(m, 1e-3), round_to(p, 1e-3), std::nullopt};
    if (m > 0) r.error_pct = round_to(error_pct(m, p), 1e-4);
    return r;
}

json row_json(const char* key, const MeasuredPredicted& r) {
    return json{{key, r.name}, {"measured_ns", r.measured_ns}, {"predicted_ns", r.predicted_ns}, {"error_pct", json_or_null(r.error_pct)}};
}

json dist_json(const std::optional<DurationStats>& d) {
    if (!d) return nullptr;
    return {{"count", d->count}, {"mean_ns", d->mean_ns}, {"p50_ns", d->p50_ns}, {"p90_ns", d->p90_ns}};
}

}  // namespace

ProfileComparison compare_profiles(const Profile& m, const Profile& p) {
    ProfileComparison c;
    c.measured_file = m.file;
    c.measured_is_simulation = m.is_simulation();
    const auto mt = m.number("total_time"), pt = p.number("total_time");
    if (mt && pt) c.total_time = pair_row("total_time", *mt * 1e9, *pt * 1e9);
    for (const char* e : {"tensor", "vector", "scalar", "gpsimd", "sync"})
        c.engines.push_back(pair_row(e, engine_busy(m, e), engine_busy(p, e)));
    c.engines.push_back(pair_row("dma", dma_busy(m), dma_busy(p)));

    // Phases, each side windowed alike: with DMA transfers only when both profiles name the
    // transfers' source lines (bnsim's do, neuron-profile's do not).
    const bool transfers = transfers_named(m) && transfers_named(p);
    c.phase_windows_include = transfers ? "instructions and DMA transfers" : "instructions only";
    const auto mph = phase_windows_of(m, transfers), pph = phase_windows_of(p, transfers);
    for (const auto& mw : mph) {  // (a structured binding cannot be captured in C++17)
        const auto it = std::find_if(pph.begin(), pph.end(), [&](const auto& x) { return x.first == mw.first; });
        if (it != pph.end()) c.phases.push_back(pair_row(mw.first, mw.second.duration_ns(), it->second.duration_ns()));
    }

    // Instruction durations per (engine, opcode), on the profiler's engine names.
    auto groups = [](const Profile& pr) {
        std::map<std::pair<std::string, std::string>, std::vector<double>> g;
        for (const auto& i : pr.instructions) {
            std::string op;
            for (char ch : i.opcode) op += char(std::tolower(static_cast<unsigned char>(ch)));
            g[{engine_key(i.engine), op}].push_back(i.duration_ns);
        }
        return g;
    };
    const auto mg = groups(m), pg = groups(p);
    std::set<std::pair<std::string, std::string>> keys;
    for (const auto& kv : mg) keys.insert(kv.first);
    for (const auto& kv : pg) keys.insert(kv.first);
    for (const auto& k : keys) {
        OpcodeComparison r;
        r.engine = k.first;
        r.opcode = k.second;
        const auto a = mg.find(k), b = pg.find(k);
        if (a != mg.end()) r.measured = dist(a->second);
        if (b != pg.end()) r.predicted = dist(b->second);
        if (r.measured && r.predicted && r.measured->mean_ns > 0)
            r.mean_error_pct = round_to(error_pct(r.measured->mean_ns, r.predicted->mean_ns), 1e-4);
        c.opcodes.push_back(std::move(r));
    }
    return c;
}

json to_json(const PointsComparison& c) {
    json j;
    j["measured_file"] = c.measured_file;
    j["format"] = c.format;
    if (!c.points.empty()) j["max_error_pct"] = json_or_null(c.max_error_pct);
    auto point = [](const PointComparison& p) {
        json pj;
        pj["id"] = p.id;
        if (p.line) pj["line"] = p.line;
        json keys = json::object();
        for (const auto& [k, v] : p.keys) keys[k] = v;
        pj["keys"] = keys;
        if (!p.config.empty()) pj["config"] = p.config;
        pj["metric"] = p.metric;
        pj["measured"] = p.measured;
        if (!p.error.empty()) {
            pj["error"] = p.error;
            return pj;
        }
        pj["predicted"] = p.predicted;
        if (p.measured_us) pj["measured_us"] = *p.measured_us;
        if (p.predicted_us) pj["predicted_us"] = *p.predicted_us;
        if (!p.percentiles_us.empty()) {
            json pc = json::object();
            for (const auto& [k, v] : p.percentiles_us) pc[k] = v;
            pj["percentiles_us"] = pc;
        }
        pj["error_pct"] = p.error_pct;
        if (!p.engine_busy_ns.empty()) pj["engine_busy_ns"] = p.engine_busy_ns;
        if (p.band_contains) {
            pj["band_ns"] = {*p.band_low_ns, *p.band_high_ns};
            pj["band_contains"] = *p.band_contains;
        }
        return pj;
    };
    json points = json::array(), failed = json::array();
    for (const auto& p : c.points) points.push_back(point(p));
    for (const auto& p : c.failed) failed.push_back(point(p));
    j["points"] = points;
    j["failed"] = failed;
    if (c.points.empty()) {
        j["mape_pct"] = nullptr;
        j["max_error_pct"] = nullptr;
    } else {
        j["mape_pct"] = json_or_null(c.mape_pct);
        j["max_error_point"] = c.max_error_point;
    }
    j["rank_metric"] = c.rank_metric.empty() ? json(nullptr) : json(c.rank_metric);
    j["spearman"] = json_or_null(c.spearman);
    if (c.best_config_agrees) {
        j["measured_best"] = *c.measured_best;
        j["predicted_best"] = *c.predicted_best;
    }
    j["best_config_agrees"] = c.best_config_agrees ? json(*c.best_config_agrees) : json(nullptr);
    json kernels = json::array();
    for (const auto& k : c.kernels)
        kernels.push_back({{"kernel", k.kernel},
                           {"metric", k.metric},
                           {"points", k.points},
                           {"spearman", json_or_null(k.spearman)},
                           {"same_order", k.same_order}});
    j["kernels"] = kernels;
    j["against"] = c.against;
    if (c.tolerance_pct) j["tolerance_pct"] = *c.tolerance_pct;
    j["pass"] = c.pass;
    return j;
}

json to_json(const ProfileComparison& c) {
    json j;
    j["measured_file"] = c.measured_file;
    j["measured_is_simulation"] = c.measured_is_simulation;
    if (c.total_time) {
        json t = row_json("-", *c.total_time);
        t.erase("-");
        j["total_time"] = t;
    }
    json engines = json::array(), phases = json::array(), ops = json::array();
    for (const auto& e : c.engines) engines.push_back(row_json("engine", e));
    j["engines"] = engines;
    j["phase_windows_include"] = c.phase_windows_include;
    for (const auto& p : c.phases) phases.push_back(row_json("phase", p));
    j["phases"] = phases;
    for (const auto& o : c.opcodes)
        ops.push_back({{"engine", o.engine}, {"opcode", o.opcode}, {"measured", dist_json(o.measured)},
                       {"predicted", dist_json(o.predicted)}, {"mean_error_pct", json_or_null(o.mean_error_pct)}});
    j["opcodes"] = ops;
    j["against"] = c.against;
    return j;
}

json to_json(const CompareReport& r) {
    json j;
    if (r.points) j = to_json(*r.points);
    if (r.profile) j["profile"] = to_json(*r.profile);
    j["provenance"] = r.provenance;
    return j;
}

}  // namespace bnsim
