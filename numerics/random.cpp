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

// Marsaglia's polar method: two normals per accepted pair.
void fill_normal(Rng& r, const Distribution& d, float* v, size_t n) {
    size_t i = 0;
    while (i < n) {
        double a, b, q;
        do {
            a = 2.0 * r.uniform() - 1.0;
            b = 2.0 * r.uniform() - 1.0;
            q = a * a + b * b;
        } while (q >= 1.0 || q == 0.0);
        const double f = std::sqrt(-2.0 * std::log(q) / q);
        v[i++] = float(d.mean + d.spread * a * f);
        if (i < n) v[i++] = float(d.mean + d.spread * b * f);
    }
}

constexpr size_t kChunk = size_t(1) << 16;

// Chunk `chunk` of the stream (seed, salt): n <= kChunk values, unrounded.
void fill_chunk(const Distribution& d, uint64_t seed, uint64_t salt, size_t chunk, float* v, size_t n) {
    uint64_t k = seed * 0x100000001b3ull ^ (salt << 48) ^ chunk;
    Rng r(splitmix64(k));
    if (d.kind == Distribution::uniform) {
        for (size_t i = 0; i < n; ++i) v[i] = float(d.mean + d.spread * (2.0 * r.uniform() - 1.0));
    } else {
        fill_normal(r, d, v, n);
    }
}

}  // namespace

void fill(BigVector<float>& v, const Distribution& d, uint64_t seed, uint64_t salt, DType dt, int threads) {
    parallel_for((v.size() + kChunk - 1) / kChunk, threads, [&](size_t chunk) {
        const size_t c0 = chunk * kChunk, c1 = std::min(v.size(), c0 + kChunk);
        fill_chunk(d, seed, salt, chunk, v.data() + c0, c1 - c0);
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
        fill_chunk(d, seed, salt, chunk, buf.data(), c1 - c0);
        v.store(c0, c1 - c0, buf.data());
    });
}

void round_to_dtype(BigVector<float>& v, DType dt) {
    if (dt != DType::bf16) return;
    for (float& x : v) x = round_bf16(x);
}

}  // namespace bnsim::num
