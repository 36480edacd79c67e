#include "numerics/random.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "numerics/bf16.h"
#include "numerics/parallel.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

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

namespace {

uint64_t stream_key(uint64_t seed, uint64_t salt) {
    uint64_t k = seed * 0x100000001b3ull ^ (salt << 48);
    return splitmix64(k);
}

// u in (0, 1) of counter c: the top 53 bits, centred in their interval (never 0 or 1).
double counter_uniform(uint64_t key, uint64_t c) {
    return (double(mix64(key + c * kGamma) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

bool in_tail(double u) { return u < kTail || u > 1.0 - kTail; }

}  // namespace

void fill_range_portable(const Distribution& d, uint64_t seed, uint64_t salt, uint64_t i0, size_t n, float* out) {
    const uint64_t key = stream_key(seed, salt);
    constexpr size_t kBlock = 1024;
    double u[kBlock];
    for (size_t o = 0; o < n; o += kBlock) {
        const size_t m = std::min(kBlock, n - o);
        for (size_t j = 0; j < m; ++j) u[j] = counter_uniform(key, i0 + o + j + 1);
        float* v = out + o;
        if (d.kind == Distribution::uniform) {
            for (size_t j = 0; j < m; ++j) v[j] = float(d.mean + d.spread * (2.0 * u[j] - 1.0));
            continue;
        }
        // Every value by the central formula (one branch-free loop), then the tails redone.
        for (size_t j = 0; j < m; ++j) v[j] = float(d.mean + d.spread * normal_central(u[j]));
        for (size_t j = 0; j < m; ++j)
            if (in_tail(u[j])) v[j] = float(d.mean + d.spread * normal_tail(u[j]));
    }
}

#if defined(__x86_64__) && defined(__GNUC__)
namespace {

// The same values, four at a time with AVX2 (no FMA: every multiply and add rounds on its own,
// as in the portable loop, so the results are bit-identical). AVX2 has no 64-bit multiply and
// no 64-bit integer -> double conversion: both are built from exact 32-bit pieces.
__attribute__((target("avx2"))) __m256i mul64(__m256i a, uint64_t b) {
    // lo(a) lo(b) as a 64-bit product, plus (lo(a) hi(b) + hi(a) lo(b)) mod 2^32 in the high half:
    // both cross products at once by one 32-bit multiply against b with its halves swapped.
    const __m256i bl = _mm256_set1_epi64x(int64_t(b & 0xffffffffu));
    const __m256i swapped = _mm256_set1_epi64x(int64_t((b << 32) | (b >> 32)));
    const __m256i c = _mm256_mullo_epi32(a, swapped);  // [lo(a) hi(b), hi(a) lo(b)] mod 2^32
    const __m256i cross = _mm256_slli_epi64(_mm256_add_epi32(c, _mm256_srli_epi64(c, 32)), 32);
    return _mm256_add_epi64(_mm256_mul_epu32(a, bl), cross);
}

__attribute__((target("avx2"))) __m256i mix64x4(__m256i z) {
    z = mul64(_mm256_xor_si256(z, _mm256_srli_epi64(z, 30)), 0xbf58476d1ce4e5b9ull);
    z = mul64(_mm256_xor_si256(z, _mm256_srli_epi64(z, 27)), 0x94d049bb133111ebull);
    return _mm256_xor_si256(z, _mm256_srli_epi64(z, 31));
}

// Exact double of v < 2^53: 2^84 + hi * 2^32 and 2^52 + lo as bit patterns, offsets removed.
__attribute__((target("avx2"))) __m256d to_double53(__m256i v) {
    const __m256i hi = _mm256_or_si256(_mm256_srli_epi64(v, 32), _mm256_set1_epi64x(0x4530000000000000ll));
    const __m256i lo = _mm256_or_si256(_mm256_and_si256(v, _mm256_set1_epi64x(0xffffffffll)),
                                       _mm256_set1_epi64x(0x4330000000000000ll));
    const __m256d h = _mm256_sub_pd(_mm256_castsi256_pd(hi), _mm256_set1_pd(19342813113834066795298816.0));  // 2^84
    const __m256d l = _mm256_sub_pd(_mm256_castsi256_pd(lo), _mm256_set1_pd(4503599627370496.0));           // 2^52
    return _mm256_add_pd(h, l);
}

__attribute__((target("avx2"))) __m256d poly(const double* k, int n, __m256d r) {
    __m256d acc = _mm256_set1_pd(k[0]);
    for (int i = 1; i < n; ++i) acc = _mm256_add_pd(_mm256_mul_pd(acc, r), _mm256_set1_pd(k[i]));
    return acc;
}

// log(w) for normal w > 0 to within a few ulps (not glibc's bits): w = 2^e m with m in
// [sqrt(1/2), sqrt(2)), log m = 2 atanh(s) = 2 (s + s^3/3 + ... + s^21/21) with s = (m-1)/(m+1),
// |s| <= 0.172 (the next term is below 1e-18 of the sum), and e log 2 in two parts (the first
// exact for |e| < 2^11).
__attribute__((target("avx2"))) __m256d log_avx2(__m256d w) {
    const __m256i bits = _mm256_castpd_si256(w);
    const __m256i mant = _mm256_or_si256(_mm256_and_si256(bits, _mm256_set1_epi64x(0x000fffffffffffffll)),
                                         _mm256_set1_epi64x(0x3ff0000000000000ll));
    __m256d m = _mm256_castsi256_pd(mant);  // [1, 2)
    const __m256i pick_high = _mm256_setr_epi32(1, 3, 5, 7, 0, 0, 0, 0);
    const __m128i hi = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(bits, pick_high));
    __m256d e = _mm256_cvtepi32_pd(_mm_sub_epi32(_mm_srli_epi32(hi, 20), _mm_set1_epi32(1023)));
    const __m256d big = _mm256_cmp_pd(m, _mm256_set1_pd(1.4142135623730951), _CMP_GT_OQ);
    m = _mm256_blendv_pd(m, _mm256_mul_pd(m, _mm256_set1_pd(0.5)), big);
    e = _mm256_add_pd(e, _mm256_and_pd(big, _mm256_set1_pd(1.0)));
    const __m256d one = _mm256_set1_pd(1.0);
    const __m256d s = _mm256_div_pd(_mm256_sub_pd(m, one), _mm256_add_pd(m, one)), s2 = _mm256_mul_pd(s, s);
    __m256d t = _mm256_set1_pd(1.0 / 21);
    for (int k = 19; k >= 3; k -= 2) t = _mm256_add_pd(_mm256_mul_pd(t, s2), _mm256_set1_pd(1.0 / k));
    const __m256d two_s = _mm256_add_pd(s, s);
    const __m256d log_m = _mm256_add_pd(two_s, _mm256_mul_pd(two_s, _mm256_mul_pd(t, s2)));
    const __m256d ln2_hi = _mm256_set1_pd(6.93147180369123816490e-01), ln2_lo = _mm256_set1_pd(1.90821492927058770002e-10);
    return _mm256_add_pd(_mm256_mul_pd(e, ln2_hi), _mm256_add_pd(_mm256_mul_pd(e, ln2_lo), log_m));
}

// Four tail values (positions tails[0..3] of the block) of normal_tail's formula, with this log
// instead of glibc's. The two logs differ by a few ulps; through sqrt and the rational function
// (condition numbers below 2 over the tail) z moves by well under 2^-45 of itself, so glibc's z
// lies within 2^-36 |z| of this one, and mean + spread z (each operation rounding monotonically)
// within the values at those two ends: when both round to the same float, that is the value.
// Otherwise (rarely: the ends are 2^-35 |z| apart, floats about 2^-23 of themselves) it is
// computed as the portable loop does.
__attribute__((target("avx2"))) void tails_avx2(const Distribution& d, const double* u, const uint32_t* tails,
                                                float* v) {
    const __m256d uj = _mm256_setr_pd(u[tails[0]], u[tails[1]], u[tails[2]], u[tails[3]]);
    const __m256d lower = _mm256_cmp_pd(uj, _mm256_set1_pd(0.5), _CMP_LT_OQ);
    const __m256d w = _mm256_blendv_pd(_mm256_sub_pd(_mm256_set1_pd(1.0), uj), uj, lower);
    const __m256d q = _mm256_sqrt_pd(_mm256_mul_pd(_mm256_set1_pd(-2.0), log_avx2(w)));
    const double kD1[5] = {kD[0], kD[1], kD[2], kD[3], 1.0};
    const __m256d zl = _mm256_div_pd(poly(kC, 6, q), poly(kD1, 5, q));
    const __m256d sign = _mm256_set1_pd(-0.0);
    const __m256d z = _mm256_blendv_pd(_mm256_xor_pd(zl, sign), zl, lower);
    const __m256d dz = _mm256_mul_pd(_mm256_andnot_pd(sign, z), _mm256_set1_pd(0x1p-36));
    const __m256d mean = _mm256_set1_pd(d.mean), spread = _mm256_set1_pd(d.spread);
    const __m128 a = _mm256_cvtpd_ps(_mm256_add_pd(mean, _mm256_mul_pd(spread, _mm256_sub_pd(z, dz))));
    const __m128 b = _mm256_cvtpd_ps(_mm256_add_pd(mean, _mm256_mul_pd(spread, _mm256_add_pd(z, dz))));
    const int settled = _mm_movemask_ps(_mm_cmpeq_ps(a, b));
    alignas(16) float f[4];
    _mm_store_ps(f, a);
    for (int k = 0; k < 4; ++k) {
        const size_t j = tails[k];
        v[j] = settled >> k & 1 ? f[k] : float(d.mean + d.spread * normal_tail(u[j]));
    }
}

// Blocks as in the portable loops, each pass a short loop body so that many iterations of the
// long dependency chains (Horner's rule, the division) are in flight at once.
__attribute__((target("avx2"))) void fill_range_avx2(const Distribution& d, uint64_t seed, uint64_t salt, uint64_t i0,
                                                     size_t n, float* out) {
    const uint64_t key = stream_key(seed, salt);
    const __m256d mean = _mm256_set1_pd(d.mean), spread = _mm256_set1_pd(d.spread), half = _mm256_set1_pd(0.5);
    const __m256d one = _mm256_set1_pd(1.0), two = _mm256_set1_pd(2.0), scale = _mm256_set1_pd(1.0 / 9007199254740992.0);
    const __m256d lo_tail = _mm256_set1_pd(kTail), hi_tail = _mm256_set1_pd(1.0 - kTail);
    const double kB1[6] = {kB[0], kB[1], kB[2], kB[3], kB[4], 1.0};
    const __m256i step = _mm256_set1_epi64x(int64_t(4 * kGamma));
    const bool uniform = d.kind == Distribution::uniform;
    constexpr size_t kBlock = 1024;
    alignas(32) double u[kBlock];
    size_t o = 0;
    for (; o + kBlock <= n; o += kBlock) {
        // z of counters c .. c+3 is key + c * kGamma: one start, then four increments per step.
        const uint64_t c = i0 + o + 1;
        __m256i z = _mm256_set_epi64x(int64_t(key + (c + 3) * kGamma), int64_t(key + (c + 2) * kGamma),
                                      int64_t(key + (c + 1) * kGamma), int64_t(key + c * kGamma));
        for (size_t j = 0; j < kBlock; j += 4, z = _mm256_add_epi64(z, step))
            _mm256_store_pd(u + j,
                            _mm256_mul_pd(_mm256_add_pd(to_double53(_mm256_srli_epi64(mix64x4(z), 11)), half), scale));
        float* v = out + o;
        if (uniform) {
            for (size_t j = 0; j < kBlock; j += 4) {
                const __m256d x = _mm256_sub_pd(_mm256_mul_pd(two, _mm256_load_pd(u + j)), one);
                _mm_storeu_ps(v + j, _mm256_cvtpd_ps(_mm256_add_pd(mean, _mm256_mul_pd(spread, x))));
            }
            continue;
        }
        // The central formula for every value; the tails' positions listed without a branch
        // (one in twenty values, at random: a branch per value would mispredict), then redone.
        uint32_t tails[kBlock];
        size_t nt = 0;
        for (size_t j = 0; j < kBlock; j += 4) {
            const __m256d uj = _mm256_load_pd(u + j);
            const __m256d q = _mm256_sub_pd(uj, half), r = _mm256_mul_pd(q, q);
            const __m256d x = _mm256_div_pd(_mm256_mul_pd(poly(kA, 6, r), q), poly(kB1, 6, r));
            _mm_storeu_ps(v + j, _mm256_cvtpd_ps(_mm256_add_pd(mean, _mm256_mul_pd(spread, x))));
            const int m = _mm256_movemask_pd(
                _mm256_or_pd(_mm256_cmp_pd(uj, lo_tail, _CMP_LT_OQ), _mm256_cmp_pd(uj, hi_tail, _CMP_GT_OQ)));
            for (int k = 0; k < 4; ++k) {
                tails[nt] = uint32_t(j) + uint32_t(k);
                nt += size_t(m >> k & 1);
            }
        }
        size_t t = 0;
        for (; t + 4 <= nt; t += 4) tails_avx2(d, u, tails + t, v);
        for (; t < nt; ++t) {
            const size_t j = tails[t];
            v[j] = float(d.mean + d.spread * normal_tail(u[j]));
        }
    }
    if (o < n) fill_range_portable(d, seed, salt, i0 + o, n - o, out + o);
}

}  // namespace
#endif

void fill_range(const Distribution& d, uint64_t seed, uint64_t salt, uint64_t i0, size_t n, float* out) {
#if defined(__x86_64__) && defined(__GNUC__)
    static const bool avx2 = __builtin_cpu_supports("avx2");
    if (avx2) return fill_range_avx2(d, seed, salt, i0, n, out);
#endif
    fill_range_portable(d, seed, salt, i0, n, out);
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
