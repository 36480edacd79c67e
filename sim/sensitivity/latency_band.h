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

void print_latency_band(const nlohmann::ordered_json& band, std::ostream& out);

}  // namespace bnsim
