// The HBM model's shortcuts (whole-stripe transfers without a channel walk, the level state, a
// transfer's shares worked out once per shape, a lockstep group's lanes reserved in one call)
// against a plain per-channel model: every transfer's end must be the same number, not just
// close. The stack's busy time, which the model takes from the bytes (each byte occupies its
// channel channels / bandwidth ns), must agree with the per-channel sums.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <vector>

#include "models/hbm.h"

using namespace bnsim;

namespace {

// Each channel free at its own time, each transfer walking its channels one by one.
struct ReferenceHbm {
    HbmParams p;
    std::vector<double> free_at, busy;
    explicit ReferenceHbm(const HbmParams& params)
        : p(params), free_at(size_t(params.channels), 0.0), busy(size_t(params.channels), 0.0) {}
    double transfer(uint64_t addr, uint32_t bytes, double now) {
        std::vector<uint64_t> share;
        Hbm::split_channels(addr, bytes, uint64_t(p.interleave_bytes), p.channels, share);
        const double bw = p.bandwidth_gbps / double(p.channels);
        double done = now;
        for (size_t c = 0; c < share.size(); ++c) {
            if (share[c] == 0) continue;
            const double t = double(share[c]) / bw;
            free_at[c] = std::max(now, free_at[c]) + t;
            busy[c] += t;
            done = std::max(done, free_at[c]);
        }
        return done;
    }
    double busy_ns() const {
        double s = 0;
        for (double b : busy) s += b;
        return s / double(busy.size());
    }
};

// A seeded mix of the transfers DMA descriptors make: runs of whole stripes (some starting on
// idle channels), narrow rows inside one granule, unaligned rows over several channels, empty ones.
void check_channels_against_reference(const HbmParams& p, uint32_t seed) {
    Hbm hbm(("hbm_" + std::to_string(seed)).c_str(), p);
    ReferenceHbm ref(p);
    std::mt19937 rng(seed);
    const uint64_t stripe = uint64_t(p.interleave_bytes) * uint64_t(p.channels);
    double now = 0;
    uint64_t moved = 0;
    for (int k = 0; k < 20000; ++k) {
        // Stretches of whole stripes only (as a kernel's large loads make) between mixed ones.
        const uint32_t kind = (k / 500) % 2 == 1 ? 0 : rng() % 16;
        uint64_t addr;
        uint32_t bytes;
        if (kind < 10) {  // whole stripes: most descriptors of a large aligned row
            addr = stripe * (rng() % 4096);
            bytes = uint32_t(stripe * (1 + rng() % 4));
        } else if (kind < 13) {  // a narrow row inside one granule
            addr = rng() % (1u << 24);
            bytes = 1 + uint32_t(rng() % std::max<uint64_t>(1, uint64_t(p.interleave_bytes) - addr % uint64_t(p.interleave_bytes)));
        } else if (kind < 15) {  // an unaligned row over several channels
            addr = rng() % (1u << 24);
            bytes = 1 + rng() % uint32_t(3 * stripe);
        } else {
            addr = rng() % (1u << 24);
            bytes = 0;
        }
        // Mostly small steps (channels stay busy), sometimes a gap that leaves them all idle.
        now += rng() % 64 == 0 ? 5000.0 + double(rng() % 1000) : double(rng() % 100) / 7.0;
        if (rng() % 4 == 0) {
            // A lockstep group's lanes: n transfers of one size at one instant, a whole number of
            // granules apart (some a whole stripe apart: on the same channels).
            const size_t n = 1 + rng() % 16;
            const uint64_t stride = uint64_t(p.interleave_bytes) * (rng() % 2 ? 1 + rng() % 64 : uint64_t(p.channels));
            std::vector<double> got(n);
            hbm.transfer_n(addr, stride, bytes, rng() % 2 == 0, now, n, got.data());
            for (size_t l = 0; l < n; ++l) REQUIRE(got[l] == ref.transfer(addr + l * stride, bytes, now));
            moved += uint64_t(bytes) * n;
        } else {
            const double got = hbm.transfer(addr, bytes, rng() % 2 == 0, now);
            const double want = ref.transfer(addr, bytes, now);
            REQUIRE(got == want);
            moved += bytes;
        }
        if (k % 97 == 0) REQUIRE(hbm.busy_ns() == Approx(ref.busy_ns()).epsilon(1e-12));
    }
    CHECK(hbm.busy_ns() == Approx(ref.busy_ns()).epsilon(1e-12));
    CHECK(hbm.busy_ns() == double(moved) / p.bandwidth_gbps);
}

}  // namespace

TEST_CASE("HBM: transfer ends equal a per-channel model's and busy time its sums, 16 channels of 256 B") {
    HbmParams p;
    p.bandwidth_gbps = 725;
    p.channels = 16;
    p.interleave_bytes = 256;
    p.latency_ns = 120;
    for (uint32_t seed : {1u, 2u, 3u}) check_channels_against_reference(p, seed);
}

TEST_CASE("HBM: transfer ends equal a per-channel model's and busy time its sums, channels and granule not powers of two") {
    HbmParams p;
    p.bandwidth_gbps = 700;
    p.channels = 12;
    p.interleave_bytes = 96;
    p.latency_ns = 100;
    for (uint32_t seed : {4u, 5u}) check_channels_against_reference(p, seed);
}
