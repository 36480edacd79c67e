#include "kernels/batch_norm_bwd/memory_config.h"

#include <algorithm>
#include <sstream>

#include "kernels/kernel_target.h"

namespace bnsim::bn {

uint64_t align_up(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }

Footprint footprint(const BudgetInputs& in, int64_t f_tile) {
    const uint64_t A4 = align_up(4, in.align);
    auto A = [&](uint64_t x) { return align_up(x, in.align); };
    auto cols = [&](uint64_t k) { return k * A(uint64_t(in.n_c_tiles) * 4); };
    Footprint f;
    f.f_tile = f_tile;
    f.n_sp_tiles = (in.spatial + f_tile - 1) / f_tile;
    f.n_partials = (in.owned_batch / in.rep) * f.n_sp_tiles;
    const uint64_t fixed = cols(6) + cols(3) + 12 * A4;
    f.fixed1 = fixed + A(uint64_t(f.n_partials) * 4) + A(uint64_t(f_tile) * 4) +
               cols(1 + (in.recompute ? 2 : 0));
    f.fixed2 = fixed + A(uint64_t(f_tile) * in.compute_dsize);
    f.slot1 = A(uint64_t(f_tile) * in.dsize) * 2 +
              (in.fuse_relu ? A(uint64_t(f_tile) * in.compute_dsize) : 0);
    f.slot2 = A(uint64_t(f_tile) * in.dsize) * 2;
    f.dxslot = A(uint64_t(f_tile) * in.compute_dsize);
    return f;
}

MemoryPlan search_memory_config(const BudgetInputs& in) {
    const uint64_t budget = in.budget();
    for (int64_t f = std::min<int64_t>(in.spatial, kMaxFTile); f >= 1; f /= 2) {
        Footprint fp = footprint(in, f);
        const int64_t units = int64_t(in.n_owned_c_tiles) * fp.n_partials;
        const int top = int(std::min<int64_t>(kMaxInterleave, std::max<int64_t>(units, 1)));
        for (int il = top; il >= kMinInterleave; --il) {
            if (fp.phase1(il) <= budget && fp.phase2(il) <= budget) {
                MemoryPlan p;
                p.fp = fp;
                p.interleave = il;
                p.budget = budget;
                p.searched = true;
                return p;
            }
        }
    }
    std::ostringstream m;
    m << "batch_norm_bwd: no memory config fits in SBUF even at f_tile=1 (spatial=" << in.spatial
      << ", owned batch=" << in.owned_batch << ", owned channel tiles=" << in.n_owned_c_tiles
      << " of " << in.n_c_tiles << ", dtype size=" << in.dsize
      << ", fuse_relu=" << (in.fuse_relu ? "true" : "false")
      << ", recomputed mask=" << (in.recompute ? "true" : "false") << ", budget=" << budget
      << " bytes per partition)";
    throw KernelError(m.str());
}

MemoryPlan check_memory_config(const BudgetInputs& in, const MemoryChoice& c) {
    if (c.f_tile < 1 || c.f_tile > in.spatial)
        throw KernelError("batch_norm_bwd: memory.f_tile=" + std::to_string(c.f_tile) +
                          " must be in [1, spatial=" + std::to_string(in.spatial) + "]");
    if (c.interleave < kMinInterleave || c.interleave > kMaxInterleave)
        throw KernelError("batch_norm_bwd: memory.interleave=" + std::to_string(c.interleave) +
                          " must be in [1, 8]");
    MemoryPlan p;
    p.fp = footprint(in, c.f_tile);
    p.interleave = c.interleave;
    p.residency = c.direct_x_residency;
    p.budget = in.budget();
    const uint64_t need = std::max(p.phase1_bytes(), p.phase2_bytes());
    if (need > p.budget) {
        std::ostringstream m;
        m << "batch_norm_bwd: memory config f_tile=" << c.f_tile << " interleave=" << c.interleave
          << " needs " << need << " bytes per partition (phase 1: " << p.phase1_bytes()
          << ", phase 2: " << p.phase2_bytes() << ") but only " << p.budget
          << " are available (usable " << in.usable_bytes << " minus the kernel's " << kSbufReserve
          << "-byte reserve)";
        throw KernelError(m.str());
    }
    return p;
}

}  // namespace bnsim::bn
