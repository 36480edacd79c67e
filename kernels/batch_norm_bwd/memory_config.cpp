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

namespace {

bool fits(const Footprint& fp, int il, uint64_t budget) { return fp.phase1(il) <= budget && fp.phase2(il) <= budget; }

// The deepest interleave the search would try at this f_tile: no more slots than work units.
int top_interleave(const BudgetInputs& in, const Footprint& fp) {
    const int64_t units = int64_t(in.n_owned_c_tiles) * fp.n_partials;
    return int(std::min<int64_t>(kMaxInterleave, std::max<int64_t>(units, 1)));
}

std::string given_text(const MemoryChoice& g) {
    std::ostringstream m;
    const char* sep = "";
    if (g.f_tile) m << sep << "memory.f_tile=" << *g.f_tile, sep = " ";
    if (g.interleave) m << sep << "memory.interleave=" << *g.interleave, sep = " ";
    return m.str();
}

[[noreturn]] void over_budget(const MemoryChoice& g, const Footprint& fp, int il, uint64_t budget,
                              uint64_t usable, const std::string& what) {
    std::ostringstream m;
    m << "batch_norm_bwd: memory config " << given_text(g) << " does not fit: " << what << " needs "
      << std::max(fp.phase1(il), fp.phase2(il)) << " bytes per partition (f_tile=" << fp.f_tile
      << " interleave=" << il << ", phase 1: " << fp.phase1(il) << ", phase 2: " << fp.phase2(il)
      << ") but only " << budget << " are available (usable " << usable << " minus the kernel's "
      << kSbufReserve << "-byte reserve)";
    throw KernelError(m.str());
}

}  // namespace

MemoryPlan resolve_memory_config(const BudgetInputs& in, const MemoryChoice& g) {
    if (g.f_tile && (*g.f_tile < 1 || *g.f_tile > in.spatial))
        throw KernelError("batch_norm_bwd: memory.f_tile=" + std::to_string(*g.f_tile) +
                          " must be in [1, spatial=" + std::to_string(in.spatial) + "]");
    if (g.interleave && (*g.interleave < kMinInterleave || *g.interleave > kMaxInterleave))
        throw KernelError("batch_norm_bwd: memory.interleave=" + std::to_string(*g.interleave) +
                          " must be in [1, 8]");
    const uint64_t budget = in.budget();
    MemoryPlan p;
    p.budget = budget;
    p.f_tile_given = bool(g.f_tile);
    p.interleave_given = bool(g.interleave);
    p.residency_given = bool(g.direct_x_residency);
    p.residency = g.direct_x_residency.value_or(true);  // the kernel keeps direct_x resident

    if (g.f_tile) {
        p.fp = footprint(in, *g.f_tile);
        if (g.interleave) {
            p.interleave = *g.interleave;
            if (!fits(p.fp, p.interleave, budget)) over_budget(g, p.fp, p.interleave, budget, in.usable_bytes, "it");
            return p;
        }
        for (int il = top_interleave(in, p.fp); il >= kMinInterleave; --il)
            if (fits(p.fp, il, budget)) {
                p.interleave = il;
                return p;
            }
        over_budget(g, p.fp, kMinInterleave, budget, in.usable_bytes, "even interleave 1");
    }
    // Largest f_tile first, halving, as the kernel's search does.
    const int64_t f_max = std::min<int64_t>(in.spatial, kMaxFTile);
    for (int64_t f = f_max; f >= 1; f /= 2) {
        const Footprint fp = footprint(in, f);
        const int top = g.interleave ? *g.interleave : top_interleave(in, fp);
        const int bottom = g.interleave ? *g.interleave : kMinInterleave;
        for (int il = top; il >= bottom; --il)
            if (fits(fp, il, budget)) {
                p.fp = fp;
                p.interleave = il;
                return p;
            }
    }
    if (g.interleave) over_budget(g, footprint(in, 1), *g.interleave, budget, in.usable_bytes, "even f_tile 1");
    std::ostringstream m;
    m << "batch_norm_bwd: no memory config fits in SBUF even at f_tile=1 (spatial=" << in.spatial
      << ", owned batch=" << in.owned_batch << ", owned channel tiles=" << in.n_owned_c_tiles
      << " of " << in.n_c_tiles << ", dtype size=" << in.dsize
      << ", fuse_relu=" << (in.fuse_relu ? "true" : "false")
      << ", recomputed mask=" << (in.recompute ? "true" : "false") << ", budget=" << budget
      << " bytes per partition)";
    throw KernelError(m.str());
}

}  // namespace bnsim::bn
