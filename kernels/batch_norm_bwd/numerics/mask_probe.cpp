#include "kernels/batch_norm_bwd/numerics/mask_probe.h"

#include <stdexcept>
#include <string>

#include "kernels/batch_norm_bwd/batch_norm_bwd.h"

namespace bnsim::bn {

MaskProbe::MaskProbe(num::FunctionalExecutor& ex, const Params& p) : ex_(ex), p_(p) {
    if (p.fuse_relu) mask_.assign(size_t(p.shape.elements()), 2);
}

void MaskProbe::on_start(const Instruction& ins, double) {
    if (!p_.fuse_relu) return;
    if (ins.tag.role == kRoleLoadDy) {
        dy_src_[{ins.core, ins.tag.unit}] = ins.srcs.at(0).region;
        return;
    }
    const bool recomputed = ins.tag.role == kRoleApplyRecomputedMask;
    if (!recomputed && ins.tag.role != kRoleApplyLoadedMask) return;
    auto it = dy_src_.find({ins.core, ins.tag.unit});
    if (it == dy_src_.end()) throw std::logic_error("mask probe: no dy load seen for unit " + std::to_string(ins.tag.unit));
    const Region& src = it->second;
    const Operand& m = recomputed ? ins.srcs.at(0) : ins.srcs.at(1);
    const std::vector<float> v = ex_.read(m);
    const float thr = recomputed ? ins.scalar[0].imm : 0.0f;
    const int64_t S = p_.shape.spatial();
    const int64_t s0 = int64_t(src.byte_lo / uint64_t(dtype_size(p_.dtype)));
    const uint32_t rows = m.region.rows();
    const size_t n = size_t(m.elems_per_row());
    for (uint32_t r = 0; r < rows; ++r) {
        const int64_t base = int64_t(src.row_lo + r) * S + s0;
        for (size_t j = 0; j < n; ++j) {
            const float x = v[size_t(r) * n + j];
            mask_[size_t(base) + j] = recomputed ? (x > thr) : (x != 0.0f);
        }
    }
}

}  // namespace bnsim::bn
