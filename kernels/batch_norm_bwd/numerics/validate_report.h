#pragma once
// batch_norm_bwd's sections of the validate report: shape, dtype and precision what-ifs after
// the run's identity, and the ReLU mask check after the outputs.
#include "kernels/batch_norm_bwd/numerics/validate.h"
#include "kernels/kernel_numerics.h"

namespace bnsim::bn {

void describe_validation(const Params& p, const ValidateRequest& req, const ValidateResult& r, KernelValidation& v);

}  // namespace bnsim::bn
