#include <string>

#include "kernels/batch_norm_bwd/params.h"
#include "kernels/kernel_target.h"

namespace bnsim::bn {

// The conditions the NKI kernel checks, restated for the shape-and-flags form of a run config
// (tensor ranks and dtypes are fixed by construction here; the .npy readers check those).
void validate(const Params& p, int num_cores) {
    auto fail = [](const std::string& m) { throw KernelError("batch_norm_bwd: " + m); };
    if (!(p.eps > 0)) fail("eps must be > 0 (got " + std::to_string(p.eps) + ")");
    const Shape& s = p.shape;
    if (s.B < 1 || s.C < 1 || s.D < 1 || s.H < 1 || s.W < 1)
        fail("every dimension of dy [B, C, D, H, W] must be >= 1");
    if (p.dtype != DType::bf16 && p.dtype != DType::fp32)
        fail("dy and x_in must be bfloat16 or float32");
    if (num_cores < 1 || num_cores > 2)
        fail("lnc must be 1 or 2 (got " + std::to_string(num_cores) + ")");
}

}  // namespace bnsim::bn
