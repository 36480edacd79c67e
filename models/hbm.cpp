#include "models/hbm.h"

#include <algorithm>

namespace bnsim {

Hbm::Hbm(sc_core::sc_module_name name, const HbmParams& p)
    : sc_core::sc_module(name), p_(p), il_(uint64_t(p.interleave_bytes), uint64_t(p.channels)),
      chan_bw_(p.bandwidth_gbps / double(p.channels)), free_at_(size_t(p.channels), 0.0),
      chan_busy_(size_t(p.channels), 0.0) {}

void Hbm::split_channels(uint64_t addr, uint64_t bytes, uint64_t granule, int channels, std::vector<uint64_t>& out) {
    out.assign(size_t(channels), 0);
    for_each_channel_share(addr, bytes, Interleave(granule, uint64_t(channels)), [&](size_t c, uint64_t b) { out[c] = b; });
}

double Hbm::transfer(uint64_t addr, uint32_t bytes, bool write, double now_ns) {
    (write ? bytes_written_ : bytes_read_) += bytes;
    if (bytes == 0) return now_ns;
    double* __restrict free_at = free_at_.data();
    double* __restrict busy = chan_busy_.data();
    const size_t C = free_at_.size();
    if (il_.whole_stripes(addr, bytes)) {
        // Whole granules, the same number on every channel (a large aligned row): one share and
        // a loop the compiler vectorizes. Every channel ends at max(now, its free_at) + t, so
        // the last ends at max(now, the latest free_at) + t (rounding is monotonic): no scan.
        const double t = service_ns(bytes / C);
        if (!level_ && now_ns >= max_free_) level_ = true;  // every channel idle: all end alike
        if (!level_) {
            for (size_t c = 0; c < C; ++c) free_at[c] = std::max(now_ns, free_at[c]) + t;
        }
        for (size_t c = 0; c < C; ++c) busy[c] += t;
        max_free_ = std::max(now_ns, max_free_) + t;
        return max_free_;
    }
    if (level_) {
        // Leaving the level state: every channel is free at max_free_.
        std::fill(free_at_.begin(), free_at_.end(), max_free_);
        level_ = false;
    }
    const uint64_t head = il_.in_granule(addr);
    if (head + bytes <= il_.granule()) {
        // Inside one granule (a narrow row): one channel, the whole transfer.
        const size_t c = size_t(il_.mod_channels(il_.granule_of(addr)));
        const double end = std::max(now_ns, free_at[c]) + service_ns(bytes);
        free_at[c] = end;
        busy[c] += service_ns(bytes);
        max_free_ = std::max(max_free_, end);
        return end;
    }
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
    for (double b : chan_busy_) s += b;
    return s / double(chan_busy_.size());
}

}  // namespace bnsim
