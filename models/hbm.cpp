#include "models/hbm.h"

#include <algorithm>

namespace bnsim {

Hbm::Hbm(sc_core::sc_module_name name, const HbmParams& p)
    : sc_core::sc_module(name), p_(p), chan_bw_(p.bandwidth_gbps / double(p.channels)),
      free_at_(size_t(p.channels), 0.0), chan_busy_(size_t(p.channels), 0.0), chan_bytes_(size_t(p.channels), 0),
      scratch_(size_t(p.channels), 0) {}

void Hbm::split_channels(uint64_t addr, uint64_t bytes, uint64_t granule, int channels, std::vector<uint64_t>& out) {
    out.assign(size_t(channels), 0);
    if (bytes == 0) return;
    const uint64_t C = uint64_t(channels);
    const uint64_t first = addr / granule, last = (addr + bytes - 1) / granule;
    const uint64_t count = last - first + 1;
    const uint64_t per = count / C, extra = count % C;
    for (uint64_t c = 0; c < C; ++c) {
        const uint64_t rel = (c + C - first % C) % C;  // position of channel c after the first granule's
        out[c] = (per + (rel < extra ? 1 : 0)) * granule;
    }
    out[first % C] -= addr - first * granule;              // the first granule starts part-way
    out[last % C] -= (last + 1) * granule - (addr + bytes);  // the last one ends part-way
}

double Hbm::transfer(uint64_t addr, uint32_t bytes, bool write, double now_ns) {
    (write ? bytes_written_ : bytes_read_) += bytes;
    double done = now_ns;
    const auto serve = [&](size_t c, uint64_t b) {
        const double t = double(b) / chan_bw_;
        const double start = std::max(now_ns, free_at_[c]);
        free_at_[c] = start + t;
        chan_busy_[c] += t;
        chan_bytes_[c] += b;
        done = std::max(done, free_at_[c]);
    };
    if (bytes == 0) return done;
    const uint64_t granule = p_.interleave_bytes, C = uint64_t(p_.channels);
    const uint64_t first = addr / granule, last = (addr + uint64_t(bytes) - 1) / granule;
    if (last - first < C) {
        // The common case, a descriptor of a few granules: each channel gets at most one of them,
        // so walk the granules instead of every channel (same reservations as the general split).
        for (uint64_t g = first; g <= last; ++g) {
            const uint64_t lo = std::max(addr, g * granule), hi = std::min(addr + bytes, (g + 1) * granule);
            serve(size_t(g % C), hi - lo);
        }
        return done;
    }
    split_channels(addr, bytes, p_.interleave_bytes, p_.channels, scratch_);
    for (size_t c = 0; c < scratch_.size(); ++c)
        if (scratch_[c]) serve(c, scratch_[c]);
    return done;
}

double Hbm::busy_ns() const {
    double s = 0;
    for (double b : chan_busy_) s += b;
    return s / double(chan_busy_.size());
}

}  // namespace bnsim
