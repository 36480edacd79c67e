#pragma once
// The HBM stack a core (or the two cores of an LNC=2 pair) shares. Addresses interleave over
// hbm.channels channels in hbm.interleave_bytes granules; each channel serves hbm.bandwidth /
// channels bytes per ns, first come first served. A transfer reserves its bytes on the channels
// its address range covers and is done when the last of them is; hbm.latency_ns is the access
// latency on top, paid per transfer but pipelined (it does not occupy a channel). So concurrent
// DMA engines hitting the same channels contend, and a stack shared by two cores saturates.
#include <algorithm>
#include <cstdint>
#include <vector>

#include <systemc>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "models/hw_config.h"

namespace bnsim {

// The address interleave: granule and channel count, divided by shifts when they are powers of two
// (every preset and uncertainty bound is): a transfer's channel walk divides six times.
class Interleave {
public:
    Interleave(uint64_t granule, uint64_t channels)
        : granule_(granule), channels_(channels), g_shift_(shift_of(granule)), c_shift_(shift_of(channels)) {}
    uint64_t granule() const { return granule_; }
    uint64_t channels() const { return channels_; }
    uint64_t granule_of(uint64_t addr) const { return g_shift_ >= 0 ? addr >> g_shift_ : addr / granule_; }
    uint64_t in_granule(uint64_t addr) const { return g_shift_ >= 0 ? addr & (granule_ - 1) : addr % granule_; }
    uint64_t div_channels(uint64_t n) const { return c_shift_ >= 0 ? n >> c_shift_ : n / channels_; }
    uint64_t mod_channels(uint64_t n) const { return c_shift_ >= 0 ? n & (channels_ - 1) : n % channels_; }
    // [addr, addr + bytes) is whole granules, the same number on every channel.
    bool whole_stripes(uint64_t addr, uint64_t bytes) const {
        return in_granule(addr) == 0 && in_granule(bytes) == 0 && mod_channels(granule_of(bytes)) == 0;
    }

private:
    static int shift_of(uint64_t v) {
        if (v == 0 || (v & (v - 1)) != 0) return -1;
        int s = 0;
        while ((uint64_t(1) << s) != v) ++s;
        return s;
    }
    uint64_t granule_, channels_;
    int g_shift_, c_shift_;  // log2, or -1 if not a power of two
};

class Hbm : public sc_core::sc_module {
public:
    Hbm(sc_core::sc_module_name name, const HbmParams& p);

    // Reserves a transfer of `bytes` at `addr` starting no earlier than now_ns; returns the time
    // the channels have moved its last byte (without the access latency). Inline: a DMA engine
    // makes one per descriptor, and the common shapes (whole stripes, one granule) are short.
    double transfer(uint64_t addr, uint32_t bytes, bool write, double now_ns) {
        (write ? bytes_written_ : bytes_read_) += bytes;
        if (bytes == 0) return now_ns;
        if (il_.whole_stripes(addr, bytes)) return stripes(bytes, now_ns);
        return partial(addr, bytes, now_ns);
    }
    // transfer() of bytes > 0 at an address known to make them whole stripes
    // (interleave().whole_stripes): a DMA engine checks a run of alike descriptors once.
    double transfer_stripes(uint32_t bytes, bool write, double now_ns) {
        (write ? bytes_written_ : bytes_read_) += bytes;
        return stripes(bytes, now_ns);
    }
    // `n` transfer_stripes() of one size at one instant, one after another (a lockstep group's
    // lanes, models/dma_engine.h): the k-th's end in ends[k]. The same reservations in the same
    // order, with what they share (the service time, the byte count) worked out once.
    void transfer_stripes_n(uint32_t bytes, bool write, double now_ns, size_t n, double* ends) {
        (write ? bytes_written_ : bytes_read_) += uint64_t(bytes) * n;
        stripes_n(bytes, now_ns, n, ends);
    }
    // `n` transfer() calls of `bytes` at addr, addr + stride, ... at one instant, one after
    // another (a lockstep group's lanes), `stride` whole granules: the k-th's end in ends[k]. The
    // transfers share their shape (where in a granule they start), so it is worked out once.
    void transfer_n(uint64_t addr, uint64_t stride, uint32_t bytes, bool write, double now_ns, size_t n, double* ends) {
        (write ? bytes_written_ : bytes_read_) += uint64_t(bytes) * n;
        if (bytes == 0) {
            std::fill(ends, ends + n, now_ns);
        } else if (il_.whole_stripes(addr, bytes)) {
            stripes_n(bytes, now_ns, n, ends);
        } else {
            partial_n(addr, stride, bytes, now_ns, n, ends);
        }
    }
    // transfer() of bytes > 0 inside one granule (interleave().in_granule(addr) + bytes <=
    // granule: a narrow row): one channel, the whole transfer.
    double transfer_in_granule(uint64_t addr, uint32_t bytes, bool write, double now_ns) {
        if (level_) return transfer(addr, bytes, write, now_ns);  // leaves the level state first
        (write ? bytes_written_ : bytes_read_) += bytes;
        return one_channel(addr, bytes, now_ns);
    }
    // transfer() of bytes > 0 that is neither whole stripes nor inside one granule (a row over
    // some of the channels): the shares, without telling the shapes apart again.
    double transfer_partial(uint64_t addr, uint32_t bytes, bool write, double now_ns) {
        (write ? bytes_written_ : bytes_read_) += bytes;
        return spanning(addr, bytes, now_ns);
    }
    const Interleave& interleave() const { return il_; }
    double latency_ns() const { return p_.latency_ns; }

    uint64_t bytes_read() const { return bytes_read_; }
    uint64_t bytes_written() const { return bytes_written_; }
    // Summed channel busy time divided by the channel count (the stack's busy time): every byte
    // occupies its channel 1 / (bandwidth / channels) ns, so this is the bytes over the stack's
    // bandwidth (nothing is summed channel by channel).
    double busy_ns() const { return double(bytes_read_ + bytes_written_) / p_.bandwidth_gbps; }

    // Bytes of [addr, addr+bytes) that fall on each channel (pure; exposed for tests).
    static void split_channels(uint64_t addr, uint64_t bytes, uint64_t granule, int channels,
                               std::vector<uint64_t>& out);
    // Calls fn(channel, bytes) once for each channel [addr, addr+bytes) touches (bytes > 0), in
    // channel order from the first granule's: a transfer's only per-channel walk.
    template <class Fn>
    static void for_each_channel_share(uint64_t addr, uint64_t bytes, const Interleave& il, Fn&& fn);

private:
    // Whole granules, the same number on every channel (a large aligned row): one share. Every
    // channel ends at max(now, its free_at) + t, so the last ends at max(now, the latest
    // free_at) + t (rounding is monotonic): no scan.
    double stripes(uint32_t bytes, double now_ns) { return stripes_of(service_ns(il_.div_channels(bytes)), now_ns); }
    // The same, for a transfer of t on every channel.
    double stripes_of(double t, double now_ns) {
        if (!level_ && now_ns >= max_free_) level_ = true;  // every channel idle: all end alike
        if (!level_) spread(now_ns, t);
        max_free_ = std::max(now_ns, max_free_) + t;
        return max_free_;
    }
    // `n` whole-stripe transfers of `bytes` at one instant, one after another.
    void stripes_n(uint32_t bytes, double now_ns, size_t n, double* ends) {
        const double t = service_ns(il_.div_channels(bytes));
        // As stripes_of() does first: every channel idle makes them level. Level channels stay
        // level through whole-stripe transfers: then each ends t after the one before.
        if (!level_ && now_ns >= max_free_) level_ = true;
        if (level_) {
            double end = std::max(now_ns, max_free_);  // in a local: `ends` may not alias it
            for (size_t k = 0; k < n; ++k) {
                end += t;
                ends[k] = end;
            }
            max_free_ = end;
            return;
        }
        for (size_t k = 0; k < n; ++k) ends[k] = stripes_of(t, now_ns);
    }
    // Every channel (not level) starts t of service at max(now, its free_at).
    void spread(double now_ns, double t);
    // Any other transfer: the channels it covers, each its own share.
    double partial(uint64_t addr, uint32_t bytes, double now_ns) {
        double end;
        partial_n(addr, 0, bytes, now_ns, 1, &end);
        return end;
    }
    // One of them, known to span more than one granule: partial_n for n = 1, inline.
    double spanning(uint64_t addr, uint32_t bytes, double now_ns) {
        if (level_) unlevel();
        const double done = serve_pattern(share_pattern(il_.in_granule(addr), bytes), addr, now_ns);
        max_free_ = std::max(max_free_, done);
        return done;
    }
    // Leaves the level state: every channel is free at max_free_.
    void unlevel();
    // `n` channels in a row each start their share's service (ns[i]) at max(now, their free
    // time): their ends as one channel at a time would make them, the latest folded into `done`.
    static void serve_shares(double* __restrict free_at, const double* __restrict ns, uint64_t n, double now,
                             double& done);
    // serve_shares for transfers 1..n-1 on `Channels` channels (gathered), all busy past now (each
    // only adds its shares), their ends into ends[k]; returns the latest of them and `latest`. The
    // free times stay in registers from one transfer to the next.
    template <size_t Channels>
    static double repeat_lanes(double* __restrict gathered, const double* __restrict ns, double now, size_t n,
                               double* ends, double latest);
    // Transfers on more channels than this are served one by one (a stack has at most 32 in any preset).
    static constexpr uint64_t kGathered = 64;
    // The register width repeat_lanes takes for a transfer on `touched` channels: 4, 8 or 16, or
    // `touched` itself past 16 (served without registers).
    static uint64_t lanes_width(uint64_t touched) { return touched <= 4 ? 4 : touched <= 8 ? 8 : touched <= 16 ? 16 : touched; }
    // `n` of them, at addr, addr + stride, ... (stride whole granules), one after another.
    void partial_n(uint64_t addr, uint64_t stride, uint32_t bytes, double now_ns, size_t n, double* ends);
    // The service times of a transfer's shares, channel by channel from its first granule's: a
    // function of where in its granule it starts and of its length, which repeat from one
    // transfer to the next (a tensor's rows), so the last shape's are kept.
    struct SharePattern {
        uint64_t head = ~uint64_t(0);
        uint32_t bytes = 0;
        uint64_t touched = 0;    // channels it covers
        std::vector<double> ns;  // [touched], then zeros up to lanes_width(touched)
    };
    const SharePattern& share_pattern(uint64_t head, uint32_t bytes) {
        return pattern_.head == head && pattern_.bytes == bytes ? pattern_ : new_share_pattern(head, bytes);
    }
    // A transfer of pattern p at addr: its channels from the first granule's on, in at most two
    // straight runs (the walk wraps once past the last channel), each served (serve_shares).
    // Returns its end. Not level_.
    double serve_pattern(const SharePattern& p, uint64_t addr, double now_ns) {
        const uint64_t c_first = il_.mod_channels(il_.granule_of(addr));
        const uint64_t straight = std::min(p.touched, il_.channels() - c_first);
        double done = now_ns;
        serve_shares(free_at_.data() + c_first, p.ns.data(), straight, now_ns, done);
        serve_shares(free_at_.data(), p.ns.data() + straight, p.touched - straight, now_ns, done);
        return done;
    }
    const SharePattern& new_share_pattern(uint64_t head, uint32_t bytes);
    // A transfer inside one granule, per channel (not level_).
    double one_channel(uint64_t addr, uint32_t bytes, double now_ns) {
        const size_t c = size_t(il_.mod_channels(il_.granule_of(addr)));
        const double t = service_ns(bytes);
        const double end = std::max(now_ns, free_at_[c]) + t;
        free_at_[c] = end;
        max_free_ = std::max(max_free_, end);
        return end;
    }
    // A channel's service time for `b` bytes; transfers mostly repeat a few shares, so the
    // division is done once per distinct share.
    double service_ns(uint64_t b) {
        if (b != priced_b_) {
            priced_b_ = b;
            priced_ns_ = double(b) / chan_bw_;
        }
        return priced_ns_;
    }

    HbmParams p_;
    Interleave il_;
    double chan_bw_;  // bytes per ns per channel
    std::vector<double> free_at_;
    double max_free_ = 0;  // the latest free_at_: a whole-stripe transfer's end without a scan
    // Every channel is free at max_free_ (free_at_ is then stale): whole-stripe transfers that
    // start with all channels idle keep the channels level, and need not update each one.
    bool level_ = false;
    uint64_t priced_b_ = 0;
    double priced_ns_ = 0;
    SharePattern pattern_;
    uint64_t bytes_read_ = 0, bytes_written_ = 0;
};

// The same maximum and addition per channel as one at a time; the latest end is a maximum, so
// the order it is taken in does not matter. Two channels per step where SSE2 is there (every
// x86-64).
inline void Hbm::serve_shares(double* __restrict free_at, const double* __restrict ns, uint64_t n, double now,
                       double& done) {
    uint64_t c = 0;
#if defined(__SSE2__)
    if (n >= 2) {
        const __m128d vnow = _mm_set1_pd(now);
        __m128d vdone = _mm_set1_pd(done);
        for (; c + 2 <= n; c += 2) {
            // max(f, now) is std::max(now, f) lane by lane: f when f > now, else now.
            const __m128d end = _mm_add_pd(_mm_max_pd(_mm_loadu_pd(free_at + c), vnow), _mm_loadu_pd(ns + c));
            _mm_storeu_pd(free_at + c, end);
            vdone = _mm_max_pd(vdone, end);
        }
        alignas(16) double lanes[2];
        _mm_store_pd(lanes, vdone);
        done = std::max(lanes[0], lanes[1]);
    }
#endif
    for (; c < n; ++c) {
        const double end = std::max(now, free_at[c]) + ns[c];
        free_at[c] = end;
        done = std::max(done, end);
    }
}

template <class Fn>
void Hbm::for_each_channel_share(uint64_t addr, uint64_t bytes, const Interleave& il, Fn&& fn) {
    if (bytes == 0) return;
    const uint64_t granule = il.granule(), channels = il.channels();
    const uint64_t first = il.granule_of(addr), last = il.granule_of(addr + bytes - 1);
    const uint64_t count = last - first + 1;               // granules touched
    const uint64_t per = il.div_channels(count), extra = il.mod_channels(count);  // the first `extra` channels get one more
    const uint64_t head = il.in_granule(addr);             // the first granule starts part-way
    const uint64_t tail = (last + 1) * granule - (addr + bytes);  // the last one ends part-way
    const uint64_t c_first = il.mod_channels(first), c_last = il.mod_channels(last);
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
