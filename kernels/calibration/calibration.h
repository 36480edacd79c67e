#pragma once
// The calibration microbenchmarks as trace generators. Each returns the trace and, in
// GeneratedKernel::info, a "calibration" object naming the instructions a measurement times
// ("measured_instructions", ids in program order) and the shape it ran.
#include "kernels/calibration/params.h"
#include "kernels/kernel_target.h"

namespace bnsim::cal {

GeneratedKernel generate_dma_copy(const DmaCopyParams& p, const KernelTarget& t);
GeneratedKernel generate_activation(const ActivationParams& p, const KernelTarget& t);
GeneratedKernel generate_vector_op(const VectorOpParams& p, const KernelTarget& t);
GeneratedKernel generate_vector_add(const VectorAddParams& p, const KernelTarget& t);

}  // namespace bnsim::cal
