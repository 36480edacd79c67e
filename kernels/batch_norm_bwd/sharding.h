#pragma once
// LNC sharding of batch_norm_bwd: which channel tiles and batches each physical core owns.
#include <string>
#include <vector>

#include "kernels/batch_norm_bwd/params.h"

namespace bnsim::bn {

enum class ShardMode { none, channel, batch, redundant };
const char* shard_mode_name(ShardMode m);

struct CoreShard {
    int core = 0;
    int ct_lo = 0, ct_hi = 0;       // owned channel tiles [lo, hi)
    int64_t b_lo = 0, b_hi = 0;     // owned batches [lo, hi)
    int rep = 1;                    // partition replication (bands)
    int n_owned_c_tiles() const { return ct_hi - ct_lo; }
    int64_t owned_batch() const { return b_hi - b_lo; }
    bool empty() const { return ct_hi <= ct_lo || b_hi <= b_lo; }
};

struct Sharding {
    ShardMode mode = ShardMode::none;
    int n_c_tiles = 0;
    std::vector<CoreShard> cores;
};

Sharding shard(const Shape& s, int num_cores);

// Channel range [c0, c0 + c_size) of channel tile ct.
inline int64_t ctile_start(int ct) { return int64_t(ct) * kPMax; }
inline int64_t ctile_size(const Shape& s, int ct) {
    int64_t rest = s.C - ctile_start(ct);
    return rest < kPMax ? rest : kPMax;
}

}  // namespace bnsim::bn
