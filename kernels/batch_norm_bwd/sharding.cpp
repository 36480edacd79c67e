#include "kernels/batch_norm_bwd/sharding.h"

#include <algorithm>

namespace bnsim::bn {

const char* shard_mode_name(ShardMode m) {
    switch (m) {
    case ShardMode::none: return "none";
    case ShardMode::channel: return "channel";
    case ShardMode::batch: return "batch";
    case ShardMode::redundant: return "redundant";
    }
    return "?";
}

// Replication fills idle partitions when the whole channel range is one tile of a multiple of
// a quadrant: the largest k <= 128/c_size dividing the owned batch count.
static int replication(const Shape& s, int64_t owned_batch) {
    int64_t c_size = std::min<int64_t>(s.C, kPMax);
    if (c_size % kQuadrant != 0 || c_size != s.C) return 1;
    for (int64_t k = kPMax / c_size; k >= 2; --k)
        if (owned_batch % k == 0) return int(k);
    return 1;
}

Sharding shard(const Shape& s, int num_cores) {
    Sharding sh;
    sh.n_c_tiles = int((s.C + kPMax - 1) / kPMax);
    const int n = num_cores;
    if (n == 1)
        sh.mode = ShardMode::none;
    else if (sh.n_c_tiles >= n)
        sh.mode = ShardMode::channel;
    else if (s.B >= n)
        sh.mode = ShardMode::batch;
    else
        sh.mode = ShardMode::redundant;

    for (int p = 0; p < n; ++p) {
        CoreShard c;
        c.core = p;
        c.ct_lo = 0;
        c.ct_hi = sh.n_c_tiles;
        c.b_lo = 0;
        c.b_hi = s.B;
        if (sh.mode == ShardMode::channel) {
            int tpc = (sh.n_c_tiles + n - 1) / n;
            c.ct_lo = std::min(p * tpc, sh.n_c_tiles);
            c.ct_hi = std::min(c.ct_lo + tpc, sh.n_c_tiles);
        } else if (sh.mode == ShardMode::batch) {
            int64_t bpc = (s.B + n - 1) / n;
            c.b_lo = std::min<int64_t>(p * bpc, s.B);
            c.b_hi = std::min<int64_t>(c.b_lo + bpc, s.B);
        }
        c.rep = replication(s, c.owned_batch());
        sh.cores.push_back(c);
    }
    return sh;
}

}  // namespace bnsim::bn
