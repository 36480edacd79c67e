#pragma once
// The band a prediction hangs on: the run's latency at both ends of every estimated parameter's
// range, one parameter at a time (each run a child process), and which parameter drives each end.
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/config/run_config.h"

namespace bnsim {

// {latency_ns, low_ns, high_ns, low_driver: {name, value}, high_driver: {...}, params[].{name,
// low, high, latency_low_ns, latency_high_ns}}; with no ranged estimate the band is the value.
// `estimate`: the ends come from the screening estimate, as latency_ns then does (run --estimate),
// so the band and its centre are one kind of figure.
nlohmann::ordered_json latency_band(const RunConfig& cfg, const std::string& config, const Overrides& sets,
                                    double latency_ns, int jobs, double timeout_s = 300, bool estimate = false);

// The joint band: every estimated parameter varied at once over a Halton sample of their ranges
// (`samples` points), each sample priced by the screening estimate in this process and scaled to
// the full simulation at the preset; the lowest and highest samples confirmed in full simulation
// (child processes). Adds to `band`: p5_ns, p50_ns, p95_ns (percentiles of the sample), min_ns,
// max_ns (the confirmed extremes), model_error_pct and the 90% band widened by it
// (widened_p5_ns, widened_p95_ns), and ranking[].{name, share} (each parameter's share of the
// sample's variance, from its squared correlation with the latency).
void add_joint_band(nlohmann::ordered_json& band, const RunConfig& cfg, const std::string& config, const Overrides& sets,
                    double latency_ns, int jobs, double timeout_s = 300, int samples = 64);

// The model's own form error, until whole kernels measure it (issue 25): the per-instruction
// calibration's MAPE, 1.6% (bnsim calibrate, 101 rows, 2026-12-01; docs/trn2-measurements.md).
// Whole kernels are off by more (README, Accuracy): this is the band's floor, not its ceiling.
constexpr double kModelErrorPct = 1.6;

void print_latency_band(const nlohmann::ordered_json& band, std::ostream& out);

}  // namespace bnsim
