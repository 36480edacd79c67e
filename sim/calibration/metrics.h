#pragma once
// What a calibration row compares, computed from one simulated run of its microbenchmark.
#include <string>
#include <vector>

#include "kernels/kernel_target.h"
#include "models/hw_config.h"
#include "sim/simulate.h"

namespace bnsim {

// Hardware parameters an hw_parameter row may name (figures taken in as parameters, M5).
const std::vector<std::string>& hw_parameter_names();
double hw_parameter(const HwConfig& hw, const std::string& name);

// The value of `metric` for a run (every metric but hw_parameter). Throws std::runtime_error
// when the kernel or the result cannot give it (e.g. instruction_ns of a kernel with no
// measured instruction).
double compute_metric(const std::string& metric, const HwConfig& hw, const GeneratedKernel& k, const SimResult& r);

}  // namespace bnsim
