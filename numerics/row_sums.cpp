#include "numerics/row_sums.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

namespace bnsim::num {
namespace {

void add_rows_plain(const float* x, size_t stride, size_t rows, size_t n, float* sums) {
    for (size_t k = 0; k < rows; ++k) {
        float s = sums[k];
        for (size_t j = 0; j < n; ++j) s += x[k * stride + j];
        sums[k] = s;
    }
}

#if defined(__x86_64__) && defined(__GNUC__)
// Eight rows at a time, one per AVX2 lane: blocks of 8 x 8 values transposed so that one add
// advances all eight sums by one element each, every lane in element order.
__attribute__((target("avx2"))) void add_rows_avx2(const float* x, size_t stride, size_t rows, size_t n,
                                                   float* sums) {
    size_t k = 0;
    for (; k + 8 <= rows; k += 8) {
        const float* r = x + k * stride;
        __m256 acc = _mm256_loadu_ps(sums + k);
        size_t j = 0;
        for (; j + 8 <= n; j += 8) {
            __m256 v[8];
            for (size_t i = 0; i < 8; ++i) v[i] = _mm256_loadu_ps(r + i * stride + j);
            const __m256 t0 = _mm256_unpacklo_ps(v[0], v[1]), t1 = _mm256_unpackhi_ps(v[0], v[1]);
            const __m256 t2 = _mm256_unpacklo_ps(v[2], v[3]), t3 = _mm256_unpackhi_ps(v[2], v[3]);
            const __m256 t4 = _mm256_unpacklo_ps(v[4], v[5]), t5 = _mm256_unpackhi_ps(v[4], v[5]);
            const __m256 t6 = _mm256_unpacklo_ps(v[6], v[7]), t7 = _mm256_unpackhi_ps(v[6], v[7]);
            const __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xee);
            const __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xee);
            const __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xee);
            const __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xee);
            // Element j + c of every row, c = 0..7 in order.
            acc = _mm256_add_ps(acc, _mm256_permute2f128_ps(u0, u4, 0x20));
            acc = _mm256_add_ps(acc, _mm256_permute2f128_ps(u1, u5, 0x20));
            acc = _mm256_add_ps(acc, _mm256_permute2f128_ps(u2, u6, 0x20));
            acc = _mm256_add_ps(acc, _mm256_permute2f128_ps(u3, u7, 0x20));
            acc = _mm256_add_ps(acc, _mm256_permute2f128_ps(u0, u4, 0x31));
            acc = _mm256_add_ps(acc, _mm256_permute2f128_ps(u1, u5, 0x31));
            acc = _mm256_add_ps(acc, _mm256_permute2f128_ps(u2, u6, 0x31));
            acc = _mm256_add_ps(acc, _mm256_permute2f128_ps(u3, u7, 0x31));
        }
        _mm256_storeu_ps(sums + k, acc);
        for (size_t i = 0; i < 8; ++i)  // the last n % 8 elements of each row
            for (size_t c = j; c < n; ++c) sums[k + i] += r[i * stride + c];
    }
    add_rows_plain(x + k * stride, stride, rows - k, n, sums + k);
}
#endif

}  // namespace

void add_rows_in_order(const float* x, size_t stride, size_t rows, size_t n, float* sums) {
#if defined(__x86_64__) && defined(__GNUC__)
    static const bool avx2 = __builtin_cpu_supports("avx2");
    if (avx2) return add_rows_avx2(x, stride, rows, n, sums);
#endif
    add_rows_plain(x, stride, rows, n, sums);
}

}  // namespace bnsim::num
