#include "models/hbm.h"

#include <algorithm>

namespace bnsim {

Hbm::Hbm(sc_core::sc_module_name name, const HbmParams& p)
    : sc_core::sc_module(name), p_(p), chan_bw_(p.bandwidth_gbps / double(p.channels)),
      free_at_(size_t(p.channels), 0.0), chan_busy_(size_t(p.channels), 0.0), chan_bytes_(size_t(p.channels), 0) {}

void Hbm::split_channels(uint64_t addr, uint64_t bytes, uint64_t granule, int channels, std::vector<uint64_t>& out) {
    out.assign(size_t(channels), 0);
    for_each_channel_share(addr, bytes, granule, uint64_t(channels), [&](size_t c, uint64_t b) { out[c] = b; });
}

double Hbm::transfer(uint64_t addr, uint32_t bytes, bool write, double now_ns) {
    (write ? bytes_written_ : bytes_read_) += bytes;
    if (bytes == 0) return now_ns;
    double* free_at = free_at_.data();
    double* busy = chan_busy_.data();
    uint64_t* chan_bytes = chan_bytes_.data();
    const uint64_t granule = p_.interleave_bytes, C = uint64_t(p_.channels);
    if (addr % granule == 0 && bytes % (granule * C) == 0) {
        // Whole granules, the same number on every channel (a large aligned row): one share,
        // one division, a loop the compiler vectorizes.
        const uint64_t b = bytes / C;
        const double t = double(b) / chan_bw_;
        double done = now_ns;
        for (uint64_t c = 0; c < C; ++c) {
            const double end = std::max(now_ns, free_at[c]) + t;
            free_at[c] = end;
            busy[c] += t;
            chan_bytes[c] += b;
            done = std::max(done, end);
        }
        return done;
    }
    double done = now_ns;
    uint64_t last_b = 0;  // most channels get the same share: divide once per distinct share
    double t = 0;
    for_each_channel_share(addr, bytes, granule, C, [&](size_t c, uint64_t b) {
        if (b != last_b) {
            last_b = b;
            t = double(b) / chan_bw_;
        }
        const double end = std::max(now_ns, free_at[c]) + t;
        free_at[c] = end;
        busy[c] += t;
        chan_bytes[c] += b;
        done = std::max(done, end);
    });
    return done;
}

double Hbm::busy_ns() const {
    double s = 0;
    for (double b : chan_busy_) s += b;
    return s / double(chan_busy_.size());
}

}  // namespace bnsim
