#pragma once
// The kernel's SBUF budget: what each phase needs per partition for a given f_tile and
// interleave, the kernel's search for the largest f_tile that fits, and the resolution of a
// run config's memory constraints (any subset of f_tile, interleave, direct_x_residency) by the
// same search over what is left open.
#include <cstdint>

#include "kernels/batch_norm_bwd/params.h"
#include "kernels/batch_norm_bwd/sharding.h"

namespace bnsim::bn {

// Everything the budget depends on, for one core.
struct BudgetInputs {
    uint64_t usable_bytes = 0;   // usable SBUF per partition
    uint64_t align = 16;         // sbuf_min_align
    int n_c_tiles = 0;           // all channel tiles (the columns are that wide)
    int n_owned_c_tiles = 0;
    int64_t owned_batch = 0;
    int rep = 1;
    int64_t spatial = 0;
    int dsize = 2;
    bool fuse_relu = false;
    bool recompute = false;
    int compute_dsize = dtype_size(kComputeDType);  // bf16 intermediates (a numerics what-if may widen them)

    uint64_t budget() const { return usable_bytes > kSbufReserve ? usable_bytes - kSbufReserve : 0; }
};

// Bytes per partition of each part, for one f_tile.
struct Footprint {
    int64_t f_tile = 0;
    int64_t n_sp_tiles = 0;
    int64_t n_partials = 0;  // per channel tile
    uint64_t fixed1 = 0, fixed2 = 0;
    uint64_t slot1 = 0, slot2 = 0, dxslot = 0;
    uint64_t phase1(int il) const { return fixed1 + uint64_t(il) * (slot1 + dxslot); }
    uint64_t phase2(int il) const { return fixed2 + uint64_t(il) * (slot2 + dxslot); }
};

struct MemoryPlan {
    Footprint fp;
    int interleave = 1;
    bool residency = true;
    uint64_t budget = 0;
    // Which values the run config gave; the search chose f_tile and interleave otherwise, and
    // residency is on unless given (the kernel does not search it).
    bool f_tile_given = false, interleave_given = false, residency_given = false;
    bool all_searched() const { return !f_tile_given && !interleave_given && !residency_given; }
    bool all_given() const { return f_tile_given && interleave_given; }
    uint64_t phase1_bytes() const { return fp.phase1(interleave); }
    uint64_t phase2_bytes() const { return fp.phase2(interleave); }
};

uint64_t align_up(uint64_t x, uint64_t a);
Footprint footprint(const BudgetInputs& in, int64_t f_tile);
// The kernel's search (largest f_tile, then deepest interleave, that fits), restricted to the
// values `given` fixes; an empty `given` is the kernel's own choice. Throws KernelError naming
// the given values and the bytes needed and available if they leave nothing that fits.
MemoryPlan resolve_memory_config(const BudgetInputs& in, const MemoryChoice& given = {});

}  // namespace bnsim::bn
