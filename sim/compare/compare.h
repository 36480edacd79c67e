#pragma once
// How far predictions are from measurements: per point the error, over the set MAPE, max error,
// Spearman rank correlation and whether the measured-best config is the predicted-best; for a
// profile, per-engine busy time, per-phase duration and the per-(engine, opcode) instruction
// duration distribution, measured against predicted.
#include <nlohmann/json.hpp>

#include "sim/compare/predict.h"
#include "sim/measured/measured_runs.h"
#include "sim/measured/profile.h"

namespace bnsim {

// points[].{id, line, keys, metric, measured, predicted, measured_us, predicted_us, error_pct,
// engine_busy_ns}, mape_pct, max_error_pct, max_error_point, spearman, best_config_agrees,
// measured_best, predicted_best, failed[] (points that could not be predicted).
nlohmann::ordered_json compare_points(const MeasuredSet& set, const std::vector<Prediction>& pred);

// total_time, engines[].{engine, measured_ns, predicted_ns, error_pct}, phases[] (by the
// nki_source_location's "function:phaseN" prefix, where both have it), opcodes[].{engine, opcode,
// measured: {count, mean_ns, p50_ns, p90_ns}, predicted: {...}, mean_error_pct}.
nlohmann::ordered_json compare_profiles(const Profile& measured, const Profile& predicted);

}  // namespace bnsim
