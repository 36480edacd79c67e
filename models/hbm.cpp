#include "models/hbm.h"

#include <algorithm>

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
    double done = now_ns;
    for_each_channel_share(addr, bytes, il_, [&](size_t c, uint64_t b) {
        const double t = service_ns(b);
        const double end = std::max(now_ns, free_at[c]) + t;
        free_at[c] = end;
        busy[c] += t;
        done = std::max(done, end);
    });
    max_free_ = std::max(max_free_, done);
    return done;
}

double Hbm::busy_ns() const {
    double s = 0;
    for (size_t c = 0; c < chan_busy_.size(); ++c) s += grouped_ ? group_busy_[group_of_[c]] : chan_busy_[c];
    return s / double(chan_busy_.size());
}

}  // namespace bnsim
