#include "sim/compare/predict.h"

#include <map>

#include <nlohmann/json.hpp>

#include "sim/simulate/run_metrics.h"
#include "models/hw_params.h"
#include "sim/measured/import_error.h"
#include "sim/runner/simulation_runner.h"

namespace bnsim {

using json = nlohmann::json;

std::string point_config(const MeasuredPoint& p, const PredictOptions& o) {
    return p.config.empty() ? o.against : p.config;
}

Overrides point_overrides(const MeasuredPoint& p, const PredictOptions& o, const Overrides& extra) {
    Overrides ov = parse_overrides(o.sets);
    ov.insert(ov.end(), p.sets.begin(), p.sets.end());
    ov.insert(ov.end(), extra.begin(), extra.end());
    return ov;
}

void check_points(const MeasuredSet& set, const PredictOptions& o) {
    for (const auto& p : set.points) {
        try {
            OverrideOrigins origins;
            for (const auto& kv : p.sets) origins[kv.first] = set.format == "runs_csv" ? "column" : "key";
            load_run_config(point_config(p, o), point_overrides(p, o), origins);
        } catch (const ConfigError& e) {
            import_fail(set.file, p.line, "", (p.line ? "" : p.id + ": ") + e.what());
        }
    }
}

std::vector<Prediction> predict(const MeasuredSet& set, const PredictOptions& o, const Overrides& extra) {
    return predict_each(set, o, {extra})[0];
}

std::vector<std::vector<Prediction>> predict_each(const MeasuredSet& set, const PredictOptions& o,
                                                  const std::vector<Overrides>& extras) {
    // Every simulation the points need under every set of extras, in one batch of child
    // processes: a latency point's run report, or a metric point's value (and its baseline's,
    // subtracted). A run asked for twice (the same config, overrides and want) is made once.
    std::vector<std::vector<Prediction>> out(extras.size(), std::vector<Prediction>(set.points.size()));
    std::vector<SimRequest> reqs;
    std::map<std::string, size_t> req_of;  // a request's text: its index in reqs
    struct Need {
        size_t extra, point, req;
        bool baseline;
    };
    std::vector<Need> needs;
    auto add = [&](const SimRequest& r) {
        std::string key = r.config + '\0' + std::to_string(int(r.want)) + '\0' + r.metric;
        for (const auto& [k, v] : r.sets)  // each with its length: no two override lists make one key
            key += '\0' + std::to_string(k.size()) + ':' + k + std::to_string(v.size()) + ':' + v;
        const auto [it, fresh] = req_of.emplace(std::move(key), reqs.size());
        if (fresh) reqs.push_back(r);
        return it->second;
    };
    for (size_t x = 0; x < extras.size(); ++x) {
        for (size_t i = 0; i < set.points.size(); ++i) {
            const MeasuredPoint& p = set.points[i];
            const std::string cfg = point_config(p, o);
            const Overrides ov = point_overrides(p, o, extras[x]);
            if (p.metric == "hw_parameter") {
                Prediction& pr = out[x][i];
                try {
                    pr.value = hw_params().at(p.parameter).get(load_run_config(cfg, ov).hw);
                    pr.ok = true;
                } catch (const std::exception& e) {
                    pr.error = e.what();
                }
                continue;
            }
            SimRequest r;
            r.config = cfg;
            r.sets = ov;
            if (p.metric == "latency_ns" && !p.baseline) {
                r.want = o.engine_busy ? SimRequest::Want::report : SimRequest::Want::latency;
            } else {
                r.want = SimRequest::Want::metric;
                r.metric = p.metric;
            }
            needs.push_back({x, i, add(r), false});
            if (p.baseline && r.want == SimRequest::Want::metric) {
                r.config = *p.baseline;
                needs.push_back({x, i, add(r), true});
            }
        }
    }
    const std::vector<SimOutcome> runs = run_simulations(reqs, o.jobs, o.timeout_s);
    std::vector<std::vector<bool>> failed(extras.size(), std::vector<bool>(set.points.size(), false));
    for (const Need& n : needs) {
        Prediction& pr = out[n.extra][n.point];
        if (failed[n.extra][n.point]) continue;
        const SimOutcome& run = runs[n.req];
        if (!run.ok) {
            failed[n.extra][n.point] = true;
            pr = Prediction{};
            pr.error = run.error;
            continue;
        }
        if (reqs[n.req].want == SimRequest::Want::report) {
            const RunReport& r = run.report;
            pr.value = r.latency_ns;
            for (const auto& e : r.engines) pr.engine_busy_ns[engine_name(e.engine)] = e.busy_ns;
        } else {
            pr.value += n.baseline ? -run.value : run.value;
        }
        pr.ok = true;
    }
    return out;
}

}  // namespace bnsim
