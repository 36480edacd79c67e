#pragma once
// The answers of a finished (or merged) sweep: summary.json and report.html next to the results.
#include <string>

#include <nlohmann/json.hpp>

#include "sim/sweep/results_dir.h"
#include "sim/sweep/sweep_summary.h"

namespace bnsim {

// Writes DIR/summary.json and DIR/report.html atomically; returns the summary.
SweepSummary write_sweep_answers(const std::string& dir, const nlohmann::ordered_json& meta, const Records& records);

}  // namespace bnsim
