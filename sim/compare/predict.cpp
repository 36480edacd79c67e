#include "sim/compare/predict.h"

#include <atomic>
#include <thread>

#include <nlohmann/json.hpp>

#include "sim/calibration/metrics.h"
#include "models/hw_params.h"
#include "sim/calibration/subprocess.h"
#include "sim/measured/import_error.h"

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

namespace {

std::string last_line(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    const auto nl = s.rfind('\n');
    return nl == std::string::npos ? s : s.substr(nl + 1);
}

json run_json(const std::vector<std::string>& args, double timeout_s, int* exit_code = nullptr) {
    const ChildResult c = run_child(self_executable(), args, timeout_s);
    if (exit_code) *exit_code = c.exit_code;
    if (c.timed_out) throw std::runtime_error("no result after " + std::to_string(int(timeout_s)) + " s (killed)");
    if (c.exit_code != 0) {
        const std::string m = last_line(c.err);
        throw std::runtime_error(m.empty() ? "exit code " + std::to_string(c.exit_code) : m);
    }
    try {
        return json::parse(c.out);
    } catch (const std::exception& e) {
        throw std::runtime_error(std::string("unreadable child output: ") + e.what());
    }
}

std::vector<std::string> with_sets(std::vector<std::string> args, const Overrides& ov) {
    for (const auto& [k, v] : ov) {
        args.push_back("--set");
        args.push_back(k + "=" + v);
    }
    return args;
}

double metric_of(const std::string& config, const std::string& metric, const Overrides& ov, double timeout_s) {
    return run_json(with_sets({"calibrate", "--measure", config, "--metric", metric}, ov), timeout_s)
        .at("value")
        .get<double>();
}

Prediction predict_one(const MeasuredPoint& p, const PredictOptions& o, const Overrides& extra) {
    Prediction pr;
    try {
        const std::string cfg = point_config(p, o);
        const Overrides ov = point_overrides(p, o, extra);
        if (p.metric == "hw_parameter") {
            pr.value = hw_params().at(p.parameter).get(load_run_config(cfg, ov).hw);
        } else if (p.metric == "latency_ns" && !p.baseline) {
            const json r = run_json(with_sets({"run", cfg, "--json"}, ov), o.timeout_s);
            pr.value = r.at("latency_ns").get<double>();
            if (r.contains("engines"))
                for (auto it = r["engines"].begin(); it != r["engines"].end(); ++it)
                    if (it.value().contains("busy_ns")) pr.engine_busy_ns[it.key()] = it.value()["busy_ns"].get<double>();
        } else {
            pr.value = metric_of(cfg, p.metric, ov, o.timeout_s);
            if (p.baseline) pr.value -= metric_of(*p.baseline, p.metric, ov, o.timeout_s);
        }
        pr.ok = true;
    } catch (const std::exception& e) {
        pr.error = e.what();
    }
    return pr;
}

}  // namespace

json run_config_json(const std::string& config, const Overrides& ov, double timeout_s, int* exit_code, bool estimate) {
    std::vector<std::string> args{"run", config, "--json"};
    if (estimate) args.push_back("--estimate");
    return run_json(with_sets(args, ov), timeout_s, exit_code);
}

void parallel_for(size_t n, int jobs, const std::function<void(size_t)>& f) {
    std::atomic<size_t> next{0};
    auto worker = [&]() {
        for (size_t i; (i = next++) < n;) f(i);
    };
    const int threads = std::max(1, std::min<int>(jobs, int(n)));
    std::vector<std::thread> pool;
    for (int j = 1; j < threads; ++j) pool.emplace_back(worker);
    worker();
    for (auto& t : pool) t.join();
}

std::vector<Prediction> predict(const MeasuredSet& set, const PredictOptions& o, const Overrides& extra) {
    std::vector<Prediction> out(set.points.size());
    parallel_for(set.points.size(), o.jobs, [&](size_t i) { out[i] = predict_one(set.points[i], o, extra); });
    return out;
}

}  // namespace bnsim
