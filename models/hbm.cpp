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
    // The channels' shares as for_each_channel_share() deals them: the first channel's (less the
    // head the transfer starts past), then per + 1 granules on the channels before `extra` and
    // `per` on the rest, the last granule's channel less the tail. Each share's time is the same
    // division as service_ns(share), so every channel ends and sums exactly as when walked share
    // by share; the walk is cheaper: the middle shares' times are looked up once per transfer
    // (and their divisions kept from transfer to transfer), not once per channel.
    const uint64_t granule = il_.granule(), channels = il_.channels();
    const uint64_t first = il_.granule_of(addr), last = il_.granule_of(addr + bytes - 1);
    const uint64_t count = last - first + 1;  // >= 2
    const uint64_t per = il_.div_channels(count), extra = il_.mod_channels(count);
    const uint64_t head = il_.in_granule(addr), tail = (last + 1) * granule - (addr + bytes);
    const uint64_t c_first = il_.mod_channels(first);
    const uint64_t touched = count < channels ? count : channels;
    const uint64_t k_last = count < channels ? count - 1 : il_.mod_channels(count - 1);  // from c_first
    const double t_hi = mid_share_ns((per + 1) * granule);
    const double t_lo = per > 0 ? double(per * granule) / chan_bw_ : 0.0;
    double done = now_ns;
    uint64_t c = c_first;
    for (uint64_t k = 0; k < touched; ++k) {
        double t = k < extra ? t_hi : t_lo;
        if (k == 0 || k == k_last) {
            uint64_t b = (per + (k < extra ? 1 : 0)) * granule;
            if (k == 0) b -= head;
            if (k == k_last) b -= tail;
            t = double(b) / chan_bw_;
        }
        const double end = std::max(now_ns, free_at[c]) + t;
        free_at[c] = end;
        busy[c] += t;
        done = std::max(done, end);
        if (++c == channels) c = 0;
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
