#include "models/hbm.h"

#include <algorithm>


namespace bnsim {

Hbm::Hbm(sc_core::sc_module_name name, const HbmParams& p)
    : sc_core::sc_module(name), p_(p), il_(uint64_t(p.interleave_bytes), uint64_t(p.channels)),
      chan_bw_(p.bandwidth_gbps / double(p.channels)), free_at_(size_t(p.channels), 0.0) {}

void Hbm::split_channels(uint64_t addr, uint64_t bytes, uint64_t granule, int channels, std::vector<uint64_t>& out) {
    out.assign(size_t(channels), 0);
    for_each_channel_share(addr, bytes, Interleave(granule, uint64_t(channels)), [&](size_t c, uint64_t b) { out[c] = b; });
}

void Hbm::spread(double now_ns, double t) {
    double* __restrict free_at = free_at_.data();
    const size_t C = free_at_.size();
    for (size_t c = 0; c < C; ++c) free_at[c] = std::max(now_ns, free_at[c]) + t;
}

void Hbm::unlevel() {
    std::fill(free_at_.begin(), free_at_.end(), max_free_);
    level_ = false;
}

const Hbm::SharePattern& Hbm::new_share_pattern(uint64_t head, uint32_t bytes) {
    // A transfer starting `head` bytes into granule 0 has its first share on channel 0, so
    // for_each_channel_share() deals them in the order the walk serves them; each time is the
    // division service_ns(share) makes.
    SharePattern& p = pattern_;
    p.head = head;
    p.bytes = bytes;
    p.touched = std::min<uint64_t>(il_.granule_of(head + bytes - 1) + 1, il_.channels());
    p.ns.resize(p.touched);
    for_each_channel_share(head, bytes, il_, [&](size_t c, uint64_t b) { p.ns[c] = double(b) / chan_bw_; });
    return p;
}

void Hbm::partial_n(uint64_t addr, uint64_t stride, uint32_t bytes, double now_ns, size_t n, double* ends) {
    if (level_) unlevel();
    // Inside one granule (a narrow row): one channel, the whole transfer.
    if (il_.in_granule(addr) + bytes <= il_.granule()) {
        for (size_t k = 0; k < n; ++k, addr += stride) ends[k] = one_channel(addr, bytes, now_ns);
        return;
    }
    const SharePattern& p = share_pattern(il_.in_granule(addr), bytes);
    const uint64_t channels = il_.channels();
    double* __restrict free_at = free_at_.data();
    double latest = max_free_;
    for (size_t k = 0; k < n; ++k, addr += stride) {
        // The channels from the first granule's on, in at most two straight runs (the walk wraps
        // once past the last channel).
        const uint64_t c_first = il_.mod_channels(il_.granule_of(addr));
        const uint64_t straight = std::min(p.touched, channels - c_first);
        double done = now_ns;
        serve_shares(free_at + c_first, p.ns.data(), straight, now_ns, done);
        serve_shares(free_at, p.ns.data() + straight, p.touched - straight, now_ns, done);
        ends[k] = done;
        latest = std::max(latest, done);
    }
    max_free_ = latest;
}

}  // namespace bnsim
