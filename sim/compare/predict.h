#pragma once
// Predicts every measured point: each simulation in its own child process (sim/runner), `jobs`
// at a time. Call from one thread.
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/config/run_config.h"
#include "sim/measured/measured_runs.h"

namespace bnsim {

struct PredictOptions {
    std::string against;            // run config for points that name none
    std::vector<std::string> sets;  // "key=value" applied to every point before its own keys
    int jobs = 2;
    double timeout_s = 300;
    bool engine_busy = true;  // latency points also get their engines' busy times (compare; a fit needs none)
};

struct Prediction {
    bool ok = false;
    std::string error;  // why the point could not be predicted
    double value = 0;   // in the point's metric unit
    std::map<std::string, double> engine_busy_ns;  // latency points: per-engine busy time (with engine_busy)
};

// The run config and overrides a point runs with: `extra` (e.g. fitted parameters) last.
std::string point_config(const MeasuredPoint& p, const PredictOptions& o);
Overrides point_overrides(const MeasuredPoint& p, const PredictOptions& o, const Overrides& extra = {});

// Loads every point's config in this process (no simulation) so a bad key or value is reported
// up front, as FILE:LINE: and the config error; throws ImportError.
void check_points(const MeasuredSet& set, const PredictOptions& o);

std::vector<Prediction> predict(const MeasuredSet& set, const PredictOptions& o, const Overrides& extra = {});
// The same under each of `extras` at once ([k][i]: point i under extras[k]): one batch of child
// processes for all of them, so a fit's independent evaluations share the workers (one
// evaluation's longest simulation no longer leaves the others idle).
std::vector<std::vector<Prediction>> predict_each(const MeasuredSet& set, const PredictOptions& o,
                                                  const std::vector<Overrides>& extras);

}  // namespace bnsim
