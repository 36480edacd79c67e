#pragma once
// The HBM stack a core (or the two cores of an LNC=2 pair) shares. Addresses interleave over
// hbm.channels channels in hbm.interleave_bytes granules; each channel serves hbm.bandwidth /
// channels bytes per ns, first come first served. A transfer reserves its bytes on the channels
// its address range covers and is done when the last of them is; hbm.latency_ns is the access
// latency on top, paid per transfer but pipelined (it does not occupy a channel). So concurrent
// DMA engines hitting the same channels contend, and a stack shared by two cores saturates.
#include <cstdint>
#include <vector>

#include <systemc>

#include "models/hw_config.h"

namespace bnsim {

class HbmIF {
public:
    virtual ~HbmIF() = default;
    // Reserves a transfer of `bytes` at `addr` starting no earlier than now_ns; returns the time
    // the channels have moved its last byte (without the access latency).
    virtual double transfer(uint64_t addr, uint32_t bytes, bool write, double now_ns) = 0;
    virtual double latency_ns() const = 0;
};

class Hbm : public sc_core::sc_module, public HbmIF {
public:
    Hbm(sc_core::sc_module_name name, const HbmParams& p);

    double transfer(uint64_t addr, uint32_t bytes, bool write, double now_ns) override;
    double latency_ns() const override { return p_.latency_ns; }

    uint64_t bytes_read() const { return bytes_read_; }
    uint64_t bytes_written() const { return bytes_written_; }
    // Summed channel busy time divided by the channel count (the stack's busy time).
    double busy_ns() const;
    // Bytes each channel served, for tests of the interleave.
    const std::vector<uint64_t>& channel_bytes() const { return chan_bytes_; }

    // Bytes of [addr, addr+bytes) that fall on each channel (pure; exposed for tests).
    static void split_channels(uint64_t addr, uint64_t bytes, uint64_t granule, int channels,
                               std::vector<uint64_t>& out);
    // Calls fn(channel, bytes) once for each channel [addr, addr+bytes) touches (bytes > 0), in
    // channel order from the first granule's: a transfer's only per-channel walk.
    template <class Fn>
    static void for_each_channel_share(uint64_t addr, uint64_t bytes, uint64_t granule, uint64_t channels, Fn&& fn);

private:
    HbmParams p_;
    double chan_bw_;  // bytes per ns per channel
    std::vector<double> free_at_;
    std::vector<double> chan_busy_;
    std::vector<uint64_t> chan_bytes_;
    uint64_t bytes_read_ = 0, bytes_written_ = 0;
};

template <class Fn>
void Hbm::for_each_channel_share(uint64_t addr, uint64_t bytes, uint64_t granule, uint64_t channels, Fn&& fn) {
    if (bytes == 0) return;
    const uint64_t first = addr / granule, last = (addr + bytes - 1) / granule;
    const uint64_t count = last - first + 1;               // granules touched
    const uint64_t per = count / channels, extra = count % channels;  // the first `extra` channels get one more
    const uint64_t head = addr - first * granule;          // the first granule starts part-way
    const uint64_t tail = (last + 1) * granule - (addr + bytes);  // the last one ends part-way
    const uint64_t c_first = first % channels, c_last = last % channels;
    const uint64_t touched = count < channels ? count : channels;
    uint64_t c = c_first;
    for (uint64_t k = 0; k < touched; ++k) {
        uint64_t b = (per + (k < extra ? 1 : 0)) * granule;
        if (c == c_first) b -= head;
        if (c == c_last) b -= tail;
        fn(size_t(c), b);
        if (++c == channels) c = 0;
    }
}

}  // namespace bnsim
