#include "sim/compare/predict.h"

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
    // subtracted). A run asked for twice (the same config, overrides and want) is made once
    // (run_simulations).
    std::vector<std::vector<Prediction>> out(extras.size(), std::vector<Prediction>(set.points.size()));
    std::vector<SimRequest> reqs;
    struct Need {
        size_t extra, point;
        bool baseline;
    };
    std::vector<Need> needs;  // needs[k]: what reqs[k] is for
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
            reqs.push_back(r);
            needs.push_back({x, i, false});
            if (p.baseline && r.want == SimRequest::Want::metric) {
                r.config = *p.baseline;
                reqs.push_back(r);
                needs.push_back({x, i, true});
            }
        }
    }
    const std::vector<SimOutcome> runs = run_simulations(reqs, o.jobs, o.timeout_s);
    std::vector<std::vector<bool>> failed(extras.size(), std::vector<bool>(set.points.size(), false));
    for (size_t k = 0; k < needs.size(); ++k) {
        const Need& n = needs[k];
        Prediction& pr = out[n.extra][n.point];
        if (failed[n.extra][n.point]) continue;
        const SimOutcome& run = runs[k];
        if (!run.ok) {
            failed[n.extra][n.point] = true;
            pr = Prediction{};
            pr.error = run.error;
            continue;
        }
        if (reqs[k].want == SimRequest::Want::report) {
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
