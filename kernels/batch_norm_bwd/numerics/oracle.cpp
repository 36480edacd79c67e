#include "kernels/batch_norm_bwd/numerics/oracle.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define BNSIM_ORACLE_AVX2 1
#endif

// The element loops of the float32 oracle and of the reference's dx compiled for AVX2 as well as
// the baseline, the one the processor supports chosen at load time (GCC's target_clones, as
// numerics/vector_clones.h does for bnsim; not included: the oracle includes nothing of bnsim).
// No FMA: every multiply and add rounds on its own, so both versions give the same bits.
#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(__clang__)
#define BNSIM_ORACLE_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define BNSIM_ORACLE_CLONES
#endif

namespace bnsim::oracle {
namespace {

// Per row of x and dy (no mask): sum dy, sum dy*x_hat, sum dy^2, sum dy*x, sum (dy*x)^2, each
// added in element order, x_hat = (x - mean) * rs.
constexpr int kRowSums = 5;

#ifdef BNSIM_ORACLE_AVX2
// The row sums of four rows at once (x and dy: four rows of S values, one after the other), each
// row in its own lane of every AVX2 vector: the same additions in the same order as one row at a
// time (no FMA: every multiply and add rounds on its own), four chains advanced per add.
// One element of each of four rows (xs, ds: one per lane) into the four rows' sums.
__attribute__((target("avx2"))) inline void row_sums_step(__m256d* acc, __m128 xs, __m128 ds, __m256d m, __m256d r) {
    const __m256d xv = _mm256_cvtps_pd(xs), e = _mm256_cvtps_pd(ds);
    const __m256d xh = _mm256_mul_pd(_mm256_sub_pd(xv, m), r);
    const __m256d prod = _mm256_mul_pd(e, xv);
    acc[0] = _mm256_add_pd(acc[0], e);
    acc[1] = _mm256_add_pd(acc[1], _mm256_mul_pd(e, xh));
    acc[2] = _mm256_add_pd(acc[2], _mm256_mul_pd(e, e));
    acc[3] = _mm256_add_pd(acc[3], prod);
    acc[4] = _mm256_add_pd(acc[4], _mm256_mul_pd(prod, prod));
}

__attribute__((target("avx2"))) void four_row_sums_avx2(const float* x, const float* dy, int64_t S, double mean,
                                                        double rs, double out[4][kRowSums]) {
    const __m256d m = _mm256_set1_pd(mean), r = _mm256_set1_pd(rs);
    __m256d acc[kRowSums];
    for (__m256d& a : acc) a = _mm256_setzero_pd();
    int64_t s = 0;
    for (; s + 4 <= S; s += 4) {  // four elements of each row, transposed to one vector per element
        __m128 x0 = _mm_loadu_ps(x + s), x1 = _mm_loadu_ps(x + S + s), x2 = _mm_loadu_ps(x + 2 * S + s),
               x3 = _mm_loadu_ps(x + 3 * S + s);
        __m128 d0 = _mm_loadu_ps(dy + s), d1 = _mm_loadu_ps(dy + S + s), d2 = _mm_loadu_ps(dy + 2 * S + s),
               d3 = _mm_loadu_ps(dy + 3 * S + s);
        _MM_TRANSPOSE4_PS(x0, x1, x2, x3);
        _MM_TRANSPOSE4_PS(d0, d1, d2, d3);
        row_sums_step(acc, x0, d0, m, r);
        row_sums_step(acc, x1, d1, m, r);
        row_sums_step(acc, x2, d2, m, r);
        row_sums_step(acc, x3, d3, m, r);
    }
    alignas(32) double lanes[kRowSums][4];
    for (int k = 0; k < kRowSums; ++k) _mm256_store_pd(lanes[k], acc[k]);
    for (int row = 0; row < 4; ++row) {
        double a[kRowSums];
        for (int k = 0; k < kRowSums; ++k) a[k] = lanes[k][row];
        for (int64_t t = s; t < S; ++t) {  // the last S % 4 elements, one at a time
            const double xv = double(x[row * S + t]), e = double(dy[row * S + t]);
            const double xh = (xv - mean) * rs, prod = e * xv;
            a[0] += e;
            a[1] += e * xh;
            a[2] += e * e;
            a[3] += prod;
            a[4] += prod * prod;
        }
        for (int k = 0; k < kRowSums; ++k) out[row][k] = a[k];
    }
}
#endif

// Pairwise (cascade) float32 summation, as vectorised framework reductions do: halves until at
// most kLeaf values are left, each such leaf added in order.
constexpr size_t kLeaf = 128;

float pairwise_sum_plain(const float* v, size_t n) {
    if (n <= kLeaf) {
        float s = 0.0f;
        for (size_t i = 0; i < n; ++i) s += v[i];
        return s;
    }
    const size_t h = n / 2;
    return pairwise_sum_plain(v, h) + pairwise_sum_plain(v + h, n - h);
}

#ifdef BNSIM_ORACLE_AVX2
// The leaves' lengths, in order.
void leaf_lengths(size_t n, std::vector<uint32_t>& out) {
    if (n <= kLeaf) {
        out.push_back(uint32_t(n));
        return;
    }
    leaf_lengths(n / 2, out);
    leaf_lengths(n - n / 2, out);
}

// The pairwise sum of n values from its leaves' sums (consumed in order).
float combine_leaves(const float*& leaf_sum, size_t n) {
    if (n <= kLeaf) return *leaf_sum++;
    const float lo = combine_leaves(leaf_sum, n / 2);
    return lo + combine_leaves(leaf_sum, n - n / 2);
}

// Every leaf's sum: eight adjacent leaves of one length at a time, each in its own lane (blocks
// of 8 x 8 values transposed so that one add advances all eight, each lane in element order),
// the rest one value at a time.
__attribute__((target("avx2"))) void leaf_sums_avx2(const float* v, const std::vector<uint32_t>& len, float* sums) {
    size_t leaf = 0, at = 0;
    while (leaf < len.size()) {
        const size_t L = len[leaf];
        size_t group = 1;
        while (group < 8 && leaf + group < len.size() && len[leaf + group] == L) ++group;
        if (group < 8) {  // a leaf on its own
            float s = 0.0f;
            for (size_t i = 0; i < L; ++i) s += v[at + i];
            sums[leaf++] = s;
            at += L;
            continue;
        }
        const float* r = v + at;
        __m256 acc = _mm256_setzero_ps();
        size_t i = 0;
        for (; i + 8 <= L; i += 8) {
            __m256 row[8];
            for (int k = 0; k < 8; ++k) row[k] = _mm256_loadu_ps(r + size_t(k) * L + i);
            const __m256 t0 = _mm256_unpacklo_ps(row[0], row[1]), t1 = _mm256_unpackhi_ps(row[0], row[1]);
            const __m256 t2 = _mm256_unpacklo_ps(row[2], row[3]), t3 = _mm256_unpackhi_ps(row[2], row[3]);
            const __m256 t4 = _mm256_unpacklo_ps(row[4], row[5]), t5 = _mm256_unpackhi_ps(row[4], row[5]);
            const __m256 t6 = _mm256_unpacklo_ps(row[6], row[7]), t7 = _mm256_unpackhi_ps(row[6], row[7]);
            const __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xee);
            const __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xee);
            const __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xee);
            const __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xee);
            // Column j (element i + j of every leaf) in order j = 0..7.
            acc = _mm256_add_ps(acc, _mm256_permute2f128_ps(u0, u4, 0x20));
            acc = _mm256_add_ps(acc, _mm256_permute2f128_ps(u1, u5, 0x20));
            acc = _mm256_add_ps(acc, _mm256_permute2f128_ps(u2, u6, 0x20));
            acc = _mm256_add_ps(acc, _mm256_permute2f128_ps(u3, u7, 0x20));
            acc = _mm256_add_ps(acc, _mm256_permute2f128_ps(u0, u4, 0x31));
            acc = _mm256_add_ps(acc, _mm256_permute2f128_ps(u1, u5, 0x31));
            acc = _mm256_add_ps(acc, _mm256_permute2f128_ps(u2, u6, 0x31));
            acc = _mm256_add_ps(acc, _mm256_permute2f128_ps(u3, u7, 0x31));
        }
        _mm256_storeu_ps(sums + leaf, acc);
        for (int k = 0; k < 8; ++k)
            for (size_t j = i; j < L; ++j) sums[leaf + size_t(k)] += r[size_t(k) * L + j];
        leaf += 8;
        at += 8 * L;
    }
}
#endif

float pairwise_sum(const float* v, size_t n) {
#ifdef BNSIM_ORACLE_AVX2
    static const bool avx2 = __builtin_cpu_supports("avx2");
    if (avx2 && n > kLeaf) {
        thread_local std::vector<uint32_t> len;
        thread_local std::vector<float> sums;
        len.clear();
        leaf_lengths(n, len);
        sums.resize(len.size());
        leaf_sums_avx2(v, len, sums.data());
        const float* next = sums.data();
        return combine_leaves(next, n);
    }
#endif
    return pairwise_sum_plain(v, n);
}

}  // namespace

BNSIM_ORACLE_CLONES ChannelSums torch_float32_channel(const Problem& p, int64_t c, const DxRowSink& sink, uint8_t* mask) {
    const int64_t B = p.B, C = p.C, S = p.S, N = p.N();
    // Per-thread scratch: a channel's [B, S] products and one row of each input.
    thread_local std::vector<float> dyp, prod, xr, dyr, row;
    dyp.resize(size_t(N));
    prod.resize(size_t(N));
    xr.resize(size_t(S));
    dyr.resize(size_t(S));
    row.resize(size_t(S));
    const float rs = 1.0f / std::sqrt(p.variances[c] + float(p.eps));
    const float mean = p.means[c], ga = p.gamma[c], be = p.beta[c];
    for (int64_t b = 0; b < B; ++b) {
        const int64_t base = (b * C + c) * S;
        p.x.row(base, S, xr.data());
        p.dy.row(base, S, dyr.data());
        if (!p.fuse_relu) {  // m = 1: the same arithmetic in a loop that vectorizes
            float* dp = dyp.data() + b * S;
            float* pr = prod.data() + b * S;
            for (int64_t s = 0; s < S; ++s) {
                const float xh = (xr[size_t(s)] - mean) * rs;
                const float d = dyr[size_t(s)] * 1.0f;
                dp[s] = d;
                pr[s] = d * xh;
            }
            continue;
        }
        for (int64_t s = 0; s < S; ++s) {
            const int64_t i = base + s;
            const float xh = (xr[size_t(s)] - mean) * rs;
            float m = 1.0f;
            if (p.fuse_relu) {
                if (p.mask) {
                    m = p.mask[i] ? 1.0f : 0.0f;
                } else {
                    const float fwd = xh * ga + be;
                    m = fwd > 0.0f ? 1.0f : 0.0f;
                    if (mask) mask[i] = m != 0.0f;
                }
            }
            const float d = dyr[size_t(s)] * m;
            dyp[size_t(b * S + s)] = d;
            prod[size_t(b * S + s)] = d * xh;
        }
    }
    ChannelSums r;
    r.dbeta = pairwise_sum(dyp.data(), size_t(N));
    r.dgamma = pairwise_sum(prod.data(), size_t(N));
    if (!sink) return r;
    const float invn = 1.0f / float(N);
    const float scale = ga * rs, mb = r.dbeta * invn, mg = r.dgamma * invn;
    for (int64_t b = 0; b < B; ++b) {
        const int64_t base = (b * C + c) * S;
        p.x.row(base, S, xr.data());
        for (int64_t s = 0; s < S; ++s) {
            const float xh = (xr[size_t(s)] - mean) * rs;
            const float d = dyp[size_t(b * S + s)];
            row[size_t(s)] = scale * (d - mb - xh * mg);
        }
        sink(b * C + c, row.data());
    }
    return r;
}

Float32Result torch_float32(const Problem& p, const DxRowSink& sink) {
    Float32Result r;
    const int64_t C = p.C, S = p.S;
    if (!sink) r.dx.resize(size_t(p.size()));
    r.dgamma.resize(size_t(C));
    r.dbeta.resize(size_t(C));
    if (p.fuse_relu && !p.mask) r.mask.resize(size_t(p.size()));
    auto keep = [&](int64_t row, const float* dx) { std::copy(dx, dx + S, r.dx.data() + row * S); };
    for (int64_t c = 0; c < C; ++c) {
        const ChannelSums cs = torch_float32_channel(p, c, sink ? sink : DxRowSink(keep), r.mask.empty() ? nullptr : r.mask.data());
        r.dgamma[size_t(c)] = cs.dgamma;
        r.dbeta[size_t(c)] = cs.dbeta;
    }
    return r;
}

Reference64::Reference64(const Problem& p, const ChannelLoop& loop) : p_(p) {
    const int64_t B = p.B, C = p.C, S = p.S;
    rstd_.resize(size_t(C));
    dbeta_.assign(size_t(C), 0.0);
    dgamma_.assign(size_t(C), 0.0);
    dy_l2_.assign(size_t(C), 0.0);
    dyx_sum_.assign(size_t(C), 0.0);
    dyx_l2_.assign(size_t(C), 0.0);
    for (int64_t c = 0; c < C; ++c) rstd_[size_t(c)] = 1.0 / std::sqrt(double(p.variances[c]) + p.eps);
    // Each channel's sums over its rows, b = 0..B-1 in order (the same for any loop).
    auto channel = [&](int64_t c) {
        thread_local std::vector<float> xr, dyr;
        xr.resize(4 * size_t(S));
        dyr.resize(4 * size_t(S));
        const double mean = p.means[c], rs = rstd_[size_t(c)], ga = p.gamma[c], be = p.beta[c];
        auto add_row_sums = [&](const double* sums) {
            dbeta_[size_t(c)] += sums[0];
            dgamma_[size_t(c)] += sums[1];
            dy_l2_[size_t(c)] += sums[2];
            dyx_sum_[size_t(c)] += sums[3];
            dyx_l2_[size_t(c)] += sums[4];
        };
        // Without a mask: rows side by side (each summed in its own order, their chains of
        // additions overlapping), added to the channel's sums in b order.
        int64_t b = 0;
#ifdef BNSIM_ORACLE_AVX2
        static const bool avx2 = __builtin_cpu_supports("avx2");
        for (; avx2 && !p.fuse_relu && b + 4 <= B; b += 4) {
            for (int r = 0; r < 4; ++r) {
                p.x.row(((b + r) * C + c) * S, S, xr.data() + size_t(r * S));
                p.dy.row(((b + r) * C + c) * S, S, dyr.data() + size_t(r * S));
            }
            double row_sums[4][kRowSums];
            four_row_sums_avx2(xr.data(), dyr.data(), S, mean, rs, row_sums);
            for (const double* sums : row_sums) add_row_sums(sums);
        }
#endif
        for (; !p.fuse_relu && b + 2 <= B; b += 2) {
            for (int r = 0; r < 2; ++r) {
                p.x.row(((b + r) * C + c) * S, S, xr.data() + size_t(r * S));
                p.dy.row(((b + r) * C + c) * S, S, dyr.data() + size_t(r * S));
            }
            const float *x0 = xr.data(), *x1 = x0 + S, *d0 = dyr.data(), *d1 = d0 + S;
            double sb0 = 0, sg0 = 0, s20 = 0, sx0 = 0, sxx0 = 0, sb1 = 0, sg1 = 0, s21 = 0, sx1 = 0, sxx1 = 0;
            for (int64_t s = 0; s < S; ++s) {
                const double xh0 = (double(x0[s]) - mean) * rs, xh1 = (double(x1[s]) - mean) * rs;
                const double e0 = double(d0[s]), e1 = double(d1[s]);
                sb0 += e0;
                sb1 += e1;
                sg0 += e0 * xh0;
                sg1 += e1 * xh1;
                s20 += e0 * e0;
                s21 += e1 * e1;
                const double p0 = e0 * double(x0[s]), p1 = e1 * double(x1[s]);
                sx0 += p0;
                sx1 += p1;
                sxx0 += p0 * p0;
                sxx1 += p1 * p1;
            }
            const double row_sums[2][kRowSums] = {{sb0, sg0, s20, sx0, sxx0}, {sb1, sg1, s21, sx1, sxx1}};
            for (const double* sums : row_sums) add_row_sums(sums);
        }
        for (; b < B; ++b) {
            const int64_t base = (b * C + c) * S;
            p.x.row(base, S, xr.data());
            p.dy.row(base, S, dyr.data());
            double sb = 0, sg = 0, s2 = 0, sx = 0, sx2 = 0;
            for (int64_t s = 0; s < S; ++s) {
                const int64_t i = base + s;
                const double xh = (double(xr[size_t(s)]) - mean) * rs;
                bool m = true;
                if (p.fuse_relu) m = p.mask ? p.mask[i] != 0 : xh * ga + be > 0.0;
                if (!m) continue;
                const double d = double(dyr[size_t(s)]);
                sb += d;
                sg += d * xh;
                s2 += d * d;
                const double dx = d * double(xr[size_t(s)]);
                sx += dx;
                sx2 += dx * dx;
            }
            const double sums[kRowSums] = {sb, sg, s2, sx, sx2};
            add_row_sums(sums);
        }
    };
    if (loop) loop(C, channel);
    else
        for (int64_t c = 0; c < C; ++c) channel(c);
    for (int64_t c = 0; c < C; ++c) {
        dy_l2_[size_t(c)] = std::sqrt(dy_l2_[size_t(c)]);
        dyx_l2_[size_t(c)] = std::sqrt(dyx_l2_[size_t(c)]);
    }
}

BNSIM_ORACLE_CLONES void Reference64::dx_row(int64_t row, const Coefficients& k, const std::vector<int64_t>& flipped,
                                             size_t& cursor, double* out) const {
    const int64_t c = row % p_.C, S = p_.S, base = row * S;
    const double mean = p_.means[c], rs = rstd_[size_t(c)], ga = p_.gamma[c], be = p_.beta[c];
    const double a = k.a[size_t(c)], b = k.b[size_t(c)], g = k.g[size_t(c)];
    while (cursor < flipped.size() && flipped[cursor] < base) ++cursor;
    thread_local std::vector<float> xr, dyr;
    xr.resize(size_t(S));
    dyr.resize(size_t(S));
    p_.x.row(base, S, xr.data());
    p_.dy.row(base, S, dyr.data());
    if (!p_.fuse_relu && (cursor == flipped.size() || flipped[cursor] >= base + S)) {
        // No mask and no flip in this row: the same arithmetic in a loop that vectorizes.
        for (int64_t s = 0; s < S; ++s) {
            const double xh = (double(xr[size_t(s)]) - mean) * rs;
            out[s] = a * (double(dyr[size_t(s)]) - b - xh * g);
        }
        return;
    }
    for (int64_t s = 0; s < S; ++s) {
        const int64_t i = base + s;
        const double xh = (double(xr[size_t(s)]) - mean) * rs;
        bool m = true;
        if (p_.fuse_relu) m = p_.mask ? p_.mask[i] != 0 : xh * ga + be > 0.0;
        if (cursor < flipped.size() && flipped[cursor] == i) {
            m = !m;
            ++cursor;
        }
        out[s] = a * ((m ? double(dyr[size_t(s)]) : 0.0) - b - xh * g);
    }
}

Coefficients Reference64::coefficients(const std::vector<int64_t>& flipped) const {
    Coefficients k;
    k.dbeta = dbeta_;
    k.dgamma = dgamma_;
    for (int64_t i : flipped) {
        const double sign = mask(i) ? -1.0 : 1.0;  // the flip removes or adds this element
        const double d = double(p_.dy[i]);
        k.dbeta[size_t(chan(i))] += sign * d;
        k.dgamma[size_t(chan(i))] += sign * d * x_hat(i);
    }
    const size_t C = size_t(p_.C);
    const double N = double(p_.N());
    k.a.resize(C);
    k.b.resize(C);
    k.g.resize(C);
    for (size_t c = 0; c < C; ++c) {
        k.a[c] = double(p_.gamma[c]) * rstd_[c];
        k.b[c] = k.dbeta[c] / N;
        k.g[c] = k.dgamma[c] / N;
    }
    return k;
}

}  // namespace bnsim::oracle
