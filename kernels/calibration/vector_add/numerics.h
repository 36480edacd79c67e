#pragma once
// vector_add's numerics entry (bnsim validate): inputs a and b from a seed (or a.npy/b.npy), the
// float64 reference and an independent float32 oracle of c = a + b, and the comparison.
#include "kernels/calibration/params.h"
#include "kernels/kernel_numerics.h"

namespace bnsim::cal {

const KernelNumerics& vector_add_numerics();

// c = a + b as the kernel defines it, in float64: for op tensor_scalar each tile adds its b
// tile's first column (the per-partition scalar), otherwise elementwise. a, b, c are the
// [partitions, n/partitions] views, row-major.
std::vector<double> vector_add_reference(const VectorAddParams& p, const std::vector<float>& a,
                                         const std::vector<float>& b);

}  // namespace bnsim::cal
