#include "models/hbm.h"

#include <algorithm>
#include <limits>

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
    // Zero shares past `touched` up to the register width repeat_lanes takes (kGathered at most).
    p.ns.assign(std::max<uint64_t>(p.touched, lanes_width(p.touched)), 0.0);
    for_each_channel_share(head, bytes, il_, [&](size_t c, uint64_t b) { p.ns[c] = double(b) / chan_bw_; });
    return p;
}

template <size_t Channels>
double Hbm::repeat_lanes(double* __restrict gathered, const double* __restrict ns, double now, size_t n,
                         double* ends, double latest) {
#if defined(__SSE2__)
    constexpr size_t kPairs = Channels / 2;
    __m128d f[kPairs], share[kPairs];
    for (size_t i = 0; i < kPairs; ++i) {
        f[i] = _mm_loadu_pd(gathered + 2 * i);
        share[i] = _mm_loadu_pd(ns + 2 * i);
    }
    for (size_t k = 1; k < n; ++k) {
        __m128d done = _mm_set1_pd(now);
        for (size_t i = 0; i < kPairs; ++i) {
            f[i] = _mm_add_pd(f[i], share[i]);
            done = _mm_max_pd(done, f[i]);
        }
        done = _mm_max_sd(done, _mm_unpackhi_pd(done, done));
        ends[k] = _mm_cvtsd_f64(done);
        latest = std::max(latest, ends[k]);
    }
    for (size_t i = 0; i < kPairs; ++i) _mm_storeu_pd(gathered + 2 * i, f[i]);
#else
    for (size_t k = 1; k < n; ++k) {
        double done = now;
        serve_shares(gathered, ns, Channels, now, done);
        ends[k] = done;
        latest = std::max(latest, done);
    }
#endif
    return latest;
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
    // Transfers a whole number of stripes apart cover the same channels from the same first one
    // (a lockstep group's lanes, as a [128, F] copy lays them out): after the first, each of
    // those channels is busy past now, so max(now, its free time) is its free time, and each
    // further transfer only adds its shares (repeat_lanes).
    const bool same_channels = n > 1 && il_.mod_channels(il_.granule_of(stride)) == 0 && p.touched <= kGathered;
    const size_t one_by_one = same_channels ? 1 : n;
    const uint64_t c_first = il_.mod_channels(il_.granule_of(addr));
    for (size_t k = 0; k < one_by_one; ++k, addr += stride) {
        ends[k] = serve_pattern(p, addr, now_ns);
        latest = std::max(latest, ends[k]);
    }
    if (same_channels) {
        const uint64_t straight = std::min(p.touched, channels - c_first);
        const uint64_t wrapped = p.touched - straight;
        double gathered[kGathered];  // the channels' free times in share order
        std::copy(free_at + c_first, free_at + c_first + straight, gathered);
        std::copy(free_at, free_at + wrapped, gathered + straight);
        // Up to 16 channels, the free times held in registers, padded to 4, 8 or 16 with channels
        // never free (-inf) whose shares are 0: they never make a transfer's end.
        const uint64_t width = lanes_width(p.touched);
        std::fill(gathered + p.touched, gathered + width, -std::numeric_limits<double>::infinity());
        switch (width) {
        case 4: latest = repeat_lanes<4>(gathered, p.ns.data(), now_ns, n, ends, latest); break;
        case 8: latest = repeat_lanes<8>(gathered, p.ns.data(), now_ns, n, ends, latest); break;
        case 16: latest = repeat_lanes<16>(gathered, p.ns.data(), now_ns, n, ends, latest); break;
        default:
            for (size_t k = 1; k < n; ++k) {
                double done = now_ns;
                serve_shares(gathered, p.ns.data(), p.touched, now_ns, done);
                ends[k] = done;
                latest = std::max(latest, done);
            }
        }
        std::copy(gathered, gathered + straight, free_at + c_first);
        std::copy(gathered + straight, gathered + p.touched, free_at);
    }
    max_free_ = latest;
}

}  // namespace bnsim
