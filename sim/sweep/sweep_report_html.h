#pragma once
// report.html: one self-contained page (inline CSS and SVG, nothing fetched) with, per context,
// the summary, a latency heatmap over the kernel's two integer decisions (auto marked), latency
// against the first for each value of the second, and each point's per-phase bound breakdown.
#include <iosfwd>

#include <nlohmann/json.hpp>

#include "sim/sweep/results_dir.h"
#include "sim/sweep/sweep_summary.h"

namespace bnsim {

void write_sweep_report_html(std::ostream& out, const nlohmann::ordered_json& meta, const Records& records,
                             const SweepSummary& summary);

}  // namespace bnsim
