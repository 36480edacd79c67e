#include "sim/compare/compare.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "sim/compare/stats.h"
#include "sim/interval_union.h"
#include "sim/report/phase_window.h"

namespace bnsim {

using json = nlohmann::ordered_json;

namespace {

double round_to(double v, double step) { return std::round(v / step) * step; }

}  // namespace

json compare_points(const MeasuredSet& set, const std::vector<Prediction>& pred) {
    json j;
    j["measured_file"] = set.file;
    j["format"] = set.format;
    json points = json::array(), failed = json::array();
    std::vector<double> meas, predv, errs;
    std::map<std::string, int> metrics;
    for (const auto& p : set.points) ++metrics[p.metric];
    // Best config and rank correlation only make sense over points measuring the same thing.
    std::string rank_metric;
    if (metrics.size() == 1) rank_metric = metrics.begin()->first;
    else if (metrics.count("latency_ns")) rank_metric = "latency_ns";
    double max_abs = -1;
    std::string max_id;
    int best_m = -1, best_p = -1;
    double best_mv = 0, best_pv = 0;
    for (size_t i = 0; i < set.points.size(); ++i) {
        const MeasuredPoint& p = set.points[i];
        const Prediction& r = pred[i];
        json pj;
        pj["id"] = p.id;
        if (p.line) pj["line"] = p.line;
        json keys = json::object();
        for (const auto& [k, v] : p.sets) keys[k] = v;
        pj["keys"] = keys;
        if (!p.config.empty()) pj["config"] = p.config;
        pj["metric"] = p.metric;
        pj["measured"] = p.measured;
        if (!r.ok) {
            pj["error"] = r.error;
            failed.push_back(pj);
            continue;
        }
        pj["predicted"] = round_to(r.value, 1e-6);
        if (metric_is_ns(p.metric)) {
            pj["measured_us"] = p.measured / 1e3;
            pj["predicted_us"] = round_to(r.value / 1e3, 1e-6);
        }
        if (!p.percentiles_us.empty()) {
            json pc = json::object();
            for (const auto& [k, v] : p.percentiles_us) pc[k] = v;
            pj["percentiles_us"] = pc;
        }
        const double e = error_pct(p.measured, r.value);
        pj["error_pct"] = round_to(e, 1e-4);
        if (!r.engine_busy_ns.empty()) pj["engine_busy_ns"] = r.engine_busy_ns;
        points.push_back(pj);
        errs.push_back(std::fabs(e));
        if (std::fabs(e) > max_abs) {
            max_abs = std::fabs(e);
            max_id = p.id;
            j["max_error_pct"] = round_to(e, 1e-4);
        }
        if (p.metric == rank_metric) {
            meas.push_back(p.measured);
            predv.push_back(r.value);
            if (best_m < 0 || p.measured < best_mv) best_m = int(i), best_mv = p.measured;
            if (best_p < 0 || r.value < best_pv) best_p = int(i), best_pv = r.value;
        }
    }
    j["points"] = points;
    j["failed"] = failed;
    if (errs.empty()) {
        j["mape_pct"] = nullptr;
        j["max_error_pct"] = nullptr;
    } else {
        double s = 0;
        for (double e : errs) s += e;
        j["mape_pct"] = round_to(s / double(errs.size()), 1e-4);
        j["max_error_point"] = max_id;
    }
    j["rank_metric"] = rank_metric.empty() ? json(nullptr) : json(rank_metric);
    const auto rho = spearman(meas, predv);
    j["spearman"] = rho ? json(round_to(*rho, 1e-6)) : json(nullptr);
    if (meas.size() >= 2) {
        j["measured_best"] = set.points[size_t(best_m)].id;
        j["predicted_best"] = set.points[size_t(best_p)].id;
        j["best_config_agrees"] = best_m == best_p;
    } else {
        j["best_config_agrees"] = nullptr;
    }
    return j;
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

json dist(const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return {{"count", v.size()}, {"mean_ns", round_to(s / double(v.size()), 1e-3)},
            {"p50_ns", round_to(quantile(v, 0.5), 1e-3)}, {"p90_ns", round_to(quantile(v, 0.9), 1e-3)}};
}

json pair_row(double m, double p) {
    json r;
    r["measured_ns"] = round_to(m, 1e-3);
    r["predicted_ns"] = round_to(p, 1e-3);
    r["error_pct"] = m > 0 ? json(round_to(error_pct(m, p), 1e-4)) : json(nullptr);
    return r;
}

// {key: name} followed by rest's fields.
json named(const char* key, const std::string& name, const json& rest) {
    json r;
    r[key] = name;
    for (auto it = rest.begin(); it != rest.end(); ++it) r[it.key()] = it.value();
    return r;
}

}  // namespace

json compare_profiles(const Profile& m, const Profile& p) {
    json j;
    j["measured_file"] = m.file;
    j["measured_is_simulation"] = m.is_simulation();
    const auto mt = m.number("total_time"), pt = p.number("total_time");
    if (mt && pt) j["total_time"] = pair_row(*mt * 1e9, *pt * 1e9);
    json engines = json::array();
    for (const char* e : {"tensor", "vector", "scalar", "gpsimd", "sync"}) {
        engines.push_back(named("engine", e, pair_row(engine_busy(m, e), engine_busy(p, e))));
    }
    engines.push_back(named("engine", "dma", pair_row(dma_busy(m), dma_busy(p))));
    j["engines"] = engines;

    // Phases, each side windowed alike: with DMA transfers only when both profiles name the
    // transfers' source lines (bnsim's do, neuron-profile's do not).
    const bool transfers = transfers_named(m) && transfers_named(p);
    j["phase_windows_include"] = transfers ? "instructions and DMA transfers" : "instructions only";
    const auto mph = phase_windows_of(m, transfers), pph = phase_windows_of(p, transfers);
    json phases = json::array();
    for (const auto& [k, mw] : mph) {
        const auto it = std::find_if(pph.begin(), pph.end(), [&](const auto& x) { return x.first == k; });
        if (it == pph.end()) continue;
        phases.push_back(named("phase", k, pair_row(mw.duration_ns(), it->second.duration_ns())));
    }
    j["phases"] = phases;

    // Instruction durations per (engine, opcode), on the profiler's engine names.
    auto groups = [](const Profile& pr) {
        std::map<std::pair<std::string, std::string>, std::vector<double>> g;
        for (const auto& i : pr.instructions) {
            std::string op;
            for (char c : i.opcode) op += char(std::tolower(static_cast<unsigned char>(c)));
            g[{engine_key(i.engine), op}].push_back(i.duration_ns);
        }
        return g;
    };
    const auto mg = groups(m), pg = groups(p);
    std::set<std::pair<std::string, std::string>> keys;
    for (const auto& kv : mg) keys.insert(kv.first);
    for (const auto& kv : pg) keys.insert(kv.first);
    json ops = json::array();
    for (const auto& k : keys) {
        json r;
        r["engine"] = k.first;
        r["opcode"] = k.second;
        auto a = mg.find(k), b = pg.find(k);
        r["measured"] = a == mg.end() ? json(nullptr) : dist(a->second);
        r["predicted"] = b == pg.end() ? json(nullptr) : dist(b->second);
        if (a != mg.end() && b != pg.end() && r["measured"]["mean_ns"].get<double>() > 0)
            r["mean_error_pct"] = round_to(error_pct(r["measured"]["mean_ns"].get<double>(), r["predicted"]["mean_ns"].get<double>()), 1e-4);
        else
            r["mean_error_pct"] = nullptr;
        ops.push_back(r);
    }
    j["opcodes"] = ops;
    return j;
}

}  // namespace bnsim
