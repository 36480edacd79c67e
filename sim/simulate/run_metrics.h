#pragma once
// The single figures of a simulated run a measurement can name (a calibration row's metric:
// instruction_ns, dma_efficiency, pe_busy_ns, ...), computed from the run's typed result.
#include <string>
#include <utility>
#include <vector>

#include "kernels/kernel_target.h"
#include "models/hw_config.h"
#include "sim/simulate/simulate.h"

namespace bnsim {

// The value of `metric` for a run (every metric but hw_parameter, which reads
// hw_params().at(parameter).get(hw)). Throws std::runtime_error
// when the kernel or the result cannot give it (e.g. instruction_ns of a kernel with no
// measured instruction).
// The engine busy-time metrics (pe_busy_ns, act_busy_ns, dve_busy_ns, pool_busy_ns,
// sync_busy_ns) and the engine each names.
const std::vector<std::pair<std::string, Engine>>& engine_busy_metrics();

double compute_metric(const std::string& metric, const HwConfig& hw, const GeneratedKernel& k, const SimResult& r);

}  // namespace bnsim
