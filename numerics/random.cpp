#include "numerics/random.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "numerics/bf16.h"
#include "numerics/parallel.h"

namespace bnsim::num {
namespace {
uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
}  // namespace

uint64_t splitmix64(uint64_t& s) {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

Rng::Rng(uint64_t seed) {
    for (auto& w : s_) w = splitmix64(seed);
}

uint64_t Rng::next() {
    const uint64_t r = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return r;
}

namespace {

constexpr uint64_t kGamma = 0x9e3779b97f4a7c15ull;  // SplitMix64's increment

uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

// Inverse of the standard normal CDF by Acklam's rational approximation: a rational function of
// (u - 1/2) in the central region, of sqrt(-2 log u) in the tails.
constexpr double kA[6] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                          1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
constexpr double kB[5] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                          6.680131188771972e+01,  -1.328068155288572e+01};
constexpr double kC[6] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                          -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
constexpr double kD[4] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                          3.754408661907416e+00};
constexpr double kTail = 0.02425;  // below it (and above 1 - it) the tail formula applies

double normal_central(double u) {
    const double q = u - 0.5, r = q * q;
    return (((((kA[0] * r + kA[1]) * r + kA[2]) * r + kA[3]) * r + kA[4]) * r + kA[5]) * q /
           (((((kB[0] * r + kB[1]) * r + kB[2]) * r + kB[3]) * r + kB[4]) * r + 1.0);
}

double normal_tail(double u) {
    const double q = std::sqrt(-2.0 * std::log(u < 0.5 ? u : 1.0 - u));
    const double z = (((((kC[0] * q + kC[1]) * q + kC[2]) * q + kC[3]) * q + kC[4]) * q + kC[5]) /
                     ((((kD[0] * q + kD[1]) * q + kD[2]) * q + kD[3]) * q + 1.0);
    return u < 0.5 ? z : -z;
}

constexpr size_t kChunk = size_t(1) << 16;

}  // namespace

void fill_range(const Distribution& d, uint64_t seed, uint64_t salt, uint64_t i0, size_t n, float* out) {
    uint64_t k = seed * 0x100000001b3ull ^ (salt << 48);
    const uint64_t key = splitmix64(k);
    constexpr size_t kBlock = 1024;
    double u[kBlock];
    for (size_t o = 0; o < n; o += kBlock) {
        const size_t m = std::min(kBlock, n - o);
        // u in (0, 1): the top 53 bits, centred in their interval (never 0 or 1).
        for (size_t j = 0; j < m; ++j)
            u[j] = (double(mix64(key + (i0 + o + j + 1) * kGamma) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
        float* v = out + o;
        if (d.kind == Distribution::uniform) {
            for (size_t j = 0; j < m; ++j) v[j] = float(d.mean + d.spread * (2.0 * u[j] - 1.0));
            continue;
        }
        // Every value by the central formula (one branch-free loop), then the tails redone.
        for (size_t j = 0; j < m; ++j) v[j] = float(d.mean + d.spread * normal_central(u[j]));
        for (size_t j = 0; j < m; ++j)
            if (u[j] < kTail || u[j] > 1.0 - kTail) v[j] = float(d.mean + d.spread * normal_tail(u[j]));
    }
}

void fill(BigVector<float>& v, const Distribution& d, uint64_t seed, uint64_t salt, DType dt, int threads) {
    parallel_for((v.size() + kChunk - 1) / kChunk, threads, [&](size_t chunk) {
        const size_t c0 = chunk * kChunk, c1 = std::min(v.size(), c0 + kChunk);
        fill_range(d, seed, salt, c0, c1 - c0, v.data() + c0);
        if (dt == DType::bf16)
            for (size_t i = c0; i < c1; ++i) v[i] = round_bf16(v[i]);
    });
}

void fill(TypedArray& v, const Distribution& d, uint64_t seed, uint64_t salt, int threads) {
    const size_t n = v.size();
    parallel_for((n + kChunk - 1) / kChunk, threads, [&](size_t chunk) {
        thread_local std::vector<float> buf;  // one per thread, not per chunk (no page faults)
        buf.resize(kChunk);
        const size_t c0 = chunk * kChunk, c1 = std::min(n, c0 + kChunk);
        fill_range(d, seed, salt, c0, c1 - c0, buf.data());
        v.store(c0, c1 - c0, buf.data());
    });
}

void round_to_dtype(BigVector<float>& v, DType dt) {
    if (dt != DType::bf16) return;
    for (float& x : v) x = round_bf16(x);
}

}  // namespace bnsim::num
