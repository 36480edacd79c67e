#pragma once
// What a calibration row compares, computed from one simulated run of its microbenchmark.
#include <string>
#include <vector>

#include "kernels/kernel_target.h"
#include "models/hw_config.h"
#include "sim/simulate.h"

namespace bnsim {

// The value of `metric` for a run (every metric but hw_parameter, which reads
// hw_params().at(parameter).get(hw)). Throws std::runtime_error
// when the kernel or the result cannot give it (e.g. instruction_ns of a kernel with no
// measured instruction).
double compute_metric(const std::string& metric, const HwConfig& hw, const GeneratedKernel& k, const SimResult& r);

}  // namespace bnsim
