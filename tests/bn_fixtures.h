#pragma once
// Shared helpers of the batch_norm_bwd tests: a Params for a shape, and the trace generated
// against a fixed SBUF (212992 usable bytes per partition, 16-byte alignment) so that the
// hand-worked budgets in the tests do not depend on the hardware preset.
#include "kernels/batch_norm_bwd/batch_norm_bwd.h"

namespace bnsim::test {

inline bn::Params bn_params(int64_t B, int64_t C, int64_t D, int64_t H, int64_t W, DType dt = DType::bf16) {
    bn::Params p;
    p.shape = {B, C, D, H, W};
    p.dtype = dt;
    return p;
}

constexpr uint64_t kTestUsableSbuf = 212992;

// With its dependencies derived, as RunConfig::generate hands it out.
inline GeneratedKernel bn_generate(const bn::Params& p, int lnc = 1, uint64_t usable = kTestUsableSbuf) {
    KernelTarget t;
    t.sbuf_usable_bytes = usable;
    t.sbuf_align = 16;
    t.num_cores = lnc;
    GeneratedKernel g = bn::generate(p, t);
    derive_dependencies(g.trace);
    return g;
}

}  // namespace bnsim::test
