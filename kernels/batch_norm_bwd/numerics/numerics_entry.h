#pragma once
// batch_norm_bwd's numerics entry (bnsim validate): its `numerics:` keys, inputs, oracle,
// comparison and report section.
#include "kernels/kernel_numerics.h"

namespace bnsim::bn {

const KernelNumerics& numerics_entry();

}  // namespace bnsim::bn
