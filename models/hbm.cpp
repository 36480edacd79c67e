#include "models/hbm.h"

#include <algorithm>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace bnsim {

namespace {
// Regrouping (a pass over the channels) waits until whole-stripe transfers have run for a while.
constexpr uint32_t kStripesBeforeRegroup = 16;
}  // namespace

Hbm::Hbm(sc_core::sc_module_name name, const HbmParams& p)
    : sc_core::sc_module(name), p_(p), il_(uint64_t(p.interleave_bytes), uint64_t(p.channels)),
      chan_bw_(p.bandwidth_gbps / double(p.channels)), free_at_(size_t(p.channels), 0.0),
      chan_busy_(size_t(p.channels), 0.0), group_of_(size_t(p.channels), 0) {}

void Hbm::split_channels(uint64_t addr, uint64_t bytes, uint64_t granule, int channels, std::vector<uint64_t>& out) {
    out.assign(size_t(channels), 0);
    for_each_channel_share(addr, bytes, Interleave(granule, uint64_t(channels)), [&](size_t c, uint64_t b) { out[c] = b; });
}

void Hbm::spread(double now_ns, double t) {
    double* __restrict free_at = free_at_.data();
    const size_t C = free_at_.size();
    for (size_t c = 0; c < C; ++c) free_at[c] = std::max(now_ns, free_at[c]) + t;
}

void Hbm::busy_all(double t) {
    double* __restrict busy = chan_busy_.data();
    const size_t C = chan_busy_.size();
    for (size_t c = 0; c < C; ++c) busy[c] += t;
    if (++stripes_ungrouped_ == kStripesBeforeRegroup) regroup();
}

void Hbm::ungroup() {
    for (size_t c = 0; c < chan_busy_.size(); ++c) chan_busy_[c] = group_busy_[group_of_[c]];
    grouped_ = false;
}

void Hbm::regroup() {
    double sums[kMaxGroups];
    size_t n = 0;
    for (size_t c = 0; c < chan_busy_.size(); ++c) {
        const size_t g = size_t(std::find(sums, sums + n, chan_busy_[c]) - sums);
        if (g == n) {
            if (n == kMaxGroups) return;  // too many distinct sums: stay per channel
            sums[n++] = chan_busy_[c];
        }
        group_of_[c] = uint8_t(g);
    }
    std::copy(sums, sums + n, group_busy_);
    grouped_ = true;
}

namespace {

// `n` channels in a row each start `t` of service at max(now, their free time): their ends and
// busy sums as one channel at a time would make them (the same maximum and additions per channel),
// and the latest end folded into `done` (a maximum: the order it is taken in does not matter).
// Two channels per step where SSE2 is there (every x86-64).
inline void serve_straight(double* __restrict free_at, double* __restrict busy, uint64_t n, double now, double t,
                           double& done) {
    uint64_t c = 0;
#if defined(__SSE2__)
    if (n >= 2) {
        const __m128d vnow = _mm_set1_pd(now), vt = _mm_set1_pd(t);
        __m128d vdone = _mm_set1_pd(done);
        for (; c + 2 <= n; c += 2) {
            // max(f, now) is std::max(now, f) lane by lane: f when f > now, else now.
            const __m128d end = _mm_add_pd(_mm_max_pd(_mm_loadu_pd(free_at + c), vnow), vt);
            _mm_storeu_pd(free_at + c, end);
            _mm_storeu_pd(busy + c, _mm_add_pd(_mm_loadu_pd(busy + c), vt));
            vdone = _mm_max_pd(vdone, end);
        }
        alignas(16) double lanes[2];
        _mm_store_pd(lanes, vdone);
        done = std::max(lanes[0], lanes[1]);
    }
#endif
    for (; c < n; ++c) {
        const double end = std::max(now, free_at[c]) + t;
        free_at[c] = end;
        busy[c] += t;
        done = std::max(done, end);
    }
}

}  // namespace

double Hbm::partial(uint64_t addr, uint32_t bytes, double now_ns) {
    if (grouped_) ungroup();
    stripes_ungrouped_ = 0;
    double* __restrict free_at = free_at_.data();
    double* __restrict busy = chan_busy_.data();
    if (level_) {
        // Leaving the level state: every channel is free at max_free_.
        std::fill(free_at_.begin(), free_at_.end(), max_free_);
        level_ = false;
    }
    // Inside one granule (a narrow row): one channel, the whole transfer.
    if (il_.in_granule(addr) + bytes <= il_.granule()) return one_channel(addr, bytes, now_ns);
    // The channels' shares as for_each_channel_share() deals them: the first channel's (less the
    // head the transfer starts past), then per + 1 granules on the channels before `extra` and
    // `per` on the rest, the last granule's channel less the tail. Each share's time is the same
    // division as service_ns(share), so every channel ends and sums exactly as when walked share
    // by share; the walk is cheaper: the middle shares' times are looked up once per transfer
    // (and their divisions kept from transfer to transfer), not once per channel, and the
    // channels between the first and the last are updated two at a time.
    const uint64_t granule = il_.granule(), channels = il_.channels();
    const uint64_t first = il_.granule_of(addr), last = il_.granule_of(addr + bytes - 1);
    const uint64_t count = last - first + 1;  // >= 2
    const uint64_t per = il_.div_channels(count), extra = il_.mod_channels(count);
    const uint64_t head = il_.in_granule(addr), tail = (last + 1) * granule - (addr + bytes);
    const uint64_t c_first = il_.mod_channels(first);
    const uint64_t touched = count < channels ? count : channels;
    const uint64_t k_last = count < channels ? count - 1 : il_.mod_channels(count - 1);  // from c_first
    double done = now_ns;
    // Channel k (from c_first) serves t.
    auto serve = [&](uint64_t k, double t) {
        uint64_t c = c_first + k;
        if (c >= channels) c -= channels;
        const double end = std::max(now_ns, free_at[c]) + t;
        free_at[c] = end;
        busy[c] += t;
        done = std::max(done, end);
    };
    // Channels k in [from, to), none of them the first or the last, each serving t: at most two
    // straight runs of channels (the walk wraps once), each updated two channels at a time.
    auto serve_run = [&](uint64_t from, uint64_t to, double t) {
        if (from >= to) return;
        uint64_t c = c_first + from;
        if (c >= channels) c -= channels;
        uint64_t n = to - from;
        while (n > 0) {
            const uint64_t straight = std::min(n, channels - c);
            serve_straight(free_at + c, busy + c, straight, now_ns, t, done);
            n -= straight;
            c = 0;
        }
    };
    // The first channel's share and the last's (one channel when the last granule wraps onto the
    // first's), then the channels between and past them.
    {
        uint64_t b = (per + (extra > 0 ? 1 : 0)) * granule - head;
        if (k_last == 0) b -= tail;
        serve(0, double(b) / chan_bw_);
    }
    const uint64_t hi_end = std::min(extra, touched);  // k in [1, hi_end): per + 1 granules
    const double t_hi = mid_share_ns((per + 1) * granule);
    const double t_lo = per > 0 ? double(per * granule) / chan_bw_ : 0.0;
    auto serve_between = [&](uint64_t from, uint64_t to) {
        serve_run(from, std::min(to, hi_end), t_hi);
        serve_run(std::max(from, hi_end), to, t_lo);  // empty when per == 0 (then hi_end == touched)
    };
    if (k_last == 0) {
        serve_between(1, touched);
    } else {
        serve_between(1, k_last);
        serve(k_last, double((per + (k_last < extra ? 1 : 0)) * granule - tail) / chan_bw_);
        serve_between(k_last + 1, touched);
    }
    max_free_ = std::max(max_free_, done);
    return done;
}

double Hbm::busy_ns() const {
    double s = 0;
    for (size_t c = 0; c < chan_busy_.size(); ++c) s += grouped_ ? group_busy_[group_of_[c]] : chan_busy_[c];
    return s / double(chan_busy_.size());
}

}  // namespace bnsim
