#include "kernels/batch_norm_bwd/numerics/mask_probe.h"

#include <stdexcept>
#include <string>

#include "kernels/batch_norm_bwd/batch_norm_bwd.h"
#include "kernels/batch_norm_bwd/sharding.h"

namespace bnsim::bn {

MaskTiles::MaskTiles(const Shape& s) : shape_(s), tiles_(size_t((s.C + kPMax - 1) / kPMax)) {}

std::vector<uint8_t>& MaskTiles::tile(int k) {
    std::vector<uint8_t>& t = tiles_.at(size_t(k));
    if (t.empty()) t.assign(size_t(shape_.B * ctile_size(shape_, k) * shape_.spatial()), 2);
    return t;
}

MaskProbe::MaskProbe(num::FunctionalExecutor& ex, const Params& p) : ex_(ex), p_(p), record_(p.shape) {}

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
    const int64_t S = p_.shape.spatial(), C = p_.shape.C;
    const int64_t s0 = int64_t(src.byte_lo / uint64_t(dtype_size(p_.dtype)));
    const uint32_t rows = m.region.rows();
    const size_t n = size_t(m.elems_per_row());
    for (uint32_t r = 0; r < rows; ++r) {
        const int64_t row = int64_t(src.row_lo + r), b = row / C, c = row % C;
        const int k = int(c / kPMax);
        const int64_t ck = ctile_size(p_.shape, k);
        uint8_t* out = record_.tile(k).data() + size_t((b * ck + c - ctile_start(k)) * S + s0);
        for (size_t j = 0; j < n; ++j) {
            const float x = v[size_t(r) * n + j];
            out[j] = recomputed ? (x > thr) : (x != 0.0f);
        }
    }
}

}  // namespace bnsim::bn
