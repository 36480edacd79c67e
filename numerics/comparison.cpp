#include "numerics/comparison.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

namespace bnsim::num {

void ErrorAccumulator::merge(const ErrorAccumulator& o) {
    if (std::isnan(max_abs) || std::isnan(o.max_abs)) max_abs = NAN;
    else max_abs = std::max(max_abs, o.max_abs);
    sq_err += o.sq_err;
    sq_ref += o.sq_ref;
    max_ref = std::max(max_ref, o.max_ref);
}

ErrorMetrics ErrorAccumulator::metrics(double max_rel_err) const {
    ErrorMetrics m;
    m.max_abs_err = max_abs;
    m.rel_l2_err = sq_ref > 0 ? std::sqrt(sq_err / sq_ref) : std::sqrt(sq_err);
    m.max_abs_ref = max_ref;
    m.max_rel_err = max_rel_err;
    return m;
}

void DeferredMaxRel::insert(double abs_ref, double rel_err, int bin) {
    // First step whose |r| is below abs_ref: the steps before it have |r| >= abs_ref.
    const size_t i = size_t(std::partition_point(steps_.begin(), steps_.end(),
                                                 [&](const Step& s) { return s.abs_ref >= abs_ref; }) -
                            steps_.begin());
    if (i > 0 && steps_[i - 1].rel_err >= rel_err) return;  // beaten by a larger |r|
    size_t j = i;
    while (j < steps_.size() && steps_[j].rel_err <= rel_err) ++j;  // the steps it beats
    if (j > i) {
        steps_[i] = {abs_ref, rel_err};
        steps_.erase(steps_.begin() + long(i) + 1, steps_.begin() + long(j));
    } else {
        steps_.insert(steps_.begin() + long(i), {abs_ref, rel_err});
    }
    for (int k = 0; k < bin; ++k) beaten_[size_t(k)] = std::max(beaten_[size_t(k)], rel_err);
}

namespace {

// compare_row_pair's definition, element by element from j0.
void compare_row_pair_portable(const float* yk, const float* yo, const double* rk, const double* ro, size_t j0,
                               size_t n, ErrorAccumulator& ek, ErrorAccumulator& eo, DeferredMaxRel& rel_k,
                               DeferredMaxRel& rel_o, double& se_ko, double& sq_o) {
    for (size_t j = j0; j < n; ++j) {
        ek.add(yk[j], rk[j]);
        eo.add(yo[j], ro[j]);
        const double d = double(yk[j]) - double(yo[j]);
        se_ko += d * d;
        sq_o += double(yo[j]) * double(yo[j]);
        const double ak = std::fabs(rk[j]), ao = std::fabs(ro[j]);
        rel_k.add(ak, std::fabs(double(yk[j]) - rk[j]) / ak);
        rel_o.add(ao, std::fabs(double(yo[j]) - ro[j]) / ao);
    }
}

}  // namespace

#if defined(__x86_64__) && defined(__GNUC__)
namespace {

// Four elements at a time with AVX2 (no FMA: every multiply and add rounds on its own). The sums
// are chains in element order, so they cannot be split: four elements' terms are transposed so
// that one vector add per element advances four chains (ek's and eo's squared errors and
// squared references) side by side, each lane in element order. The maxima are order-free (a NaN
// error is tracked apart, as add() keeps it). A pair goes to DeferredMaxRel::add only when the
// staircase might keep it: its error e = |y - r| is not clearly below beaten * |r| (the bound of
// its bin), tested without dividing: e < RN(RN(b*a) * (1 - 2^-50)) implies e/a < b exactly, so
// add() would reject it (RN(e/a) <= b); a product below 2^-1000 is left to add().
struct PairLanes {
    __m256d abs_ref, err;
};

// The bin of each |r| (four 32-bit lanes).
__attribute__((target("avx2"))) __m128i bin_of(const DeferredMaxRel::Bins& bins, __m256d abs_ref) {
    const __m256i pick_high = _mm256_setr_epi32(1, 3, 5, 7, 0, 0, 0, 0);  // the high half of each |r|
    __m128i bin = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(_mm256_castpd_si256(abs_ref), pick_high));
    bin = _mm_srl_epi32(bin, _mm_cvtsi32_si128(bins.shift - 32));
    return _mm_min_epi32(_mm_max_epi32(_mm_sub_epi32(bin, _mm_set1_epi32(bins.e0)), _mm_setzero_si128()),
                         _mm_set1_epi32(bins.count - 1));
}

// Each lane's bound by a scalar load (the bins stored by the caller): on Zen 3 that made a row
// comparison 10% faster than one AVX2 gather per group.
__attribute__((target("avx2"))) int maybe_kept(const DeferredMaxRel::Bins& bins, const int32_t* bin, PairLanes p) {
    const __m256d b = _mm256_setr_pd(bins.beaten[bin[0]], bins.beaten[bin[1]], bins.beaten[bin[2]], bins.beaten[bin[3]]);
    const __m256d t = _mm256_mul_pd(_mm256_mul_pd(b, p.abs_ref), _mm256_set1_pd(1.0 - 0x1p-50));
    const __m256d rejected =
        _mm256_and_pd(_mm256_cmp_pd(p.err, t, _CMP_LT_OQ), _mm256_cmp_pd(t, _mm256_set1_pd(0x1p-1000), _CMP_GE_OQ));
    return _mm256_movemask_pd(rejected) ^ 0xf;
}

// Folds the lanes of a running maximum into an accumulator's, as add() would.
void fold_max(ErrorAccumulator& acc, const double* max_err, bool nan, const double* max_ref) {
    double m = 0, r = acc.max_ref;
    for (int k = 0; k < 4; ++k) {
        m = std::max(m, max_err[k]);
        r = std::max(r, max_ref[k]);
    }
    if (nan) acc.max_abs = NAN;
    else if (!(m <= acc.max_abs) && !std::isnan(acc.max_abs)) acc.max_abs = m;
    acc.max_ref = r;
}

// kSharedRef: ro is rk and both staircases bin alike (the usual case: the two implementations
// share one reference), so the reference's loads, squares and bins are taken once.
template <bool kSharedRef>
__attribute__((target("avx2"))) void compare_row_pair_avx2(const float* yk, const float* yo, const double* rk,
                                                           const double* ro, size_t n, ErrorAccumulator& ek,
                                                           ErrorAccumulator& eo, DeferredMaxRel& rel_k,
                                                           DeferredMaxRel& rel_o, double& se_ko, double& sq_o) {
    const __m256d abs_mask = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffll));
    __m256d sums = _mm256_setr_pd(ek.sq_err, ek.sq_ref, eo.sq_err, eo.sq_ref);
    __m128d ko = _mm_setr_pd(se_ko, sq_o);
    __m256d max_k = _mm256_setzero_pd(), max_o = max_k, nan_k = max_k, nan_o = max_k;
    __m256d ref_k = _mm256_set1_pd(ek.max_ref), ref_o = _mm256_set1_pd(eo.max_ref);
    // Chunks of kChunk elements: the bins do not change within one (no pair is added), the pairs
    // to add are noted per four elements (kernel's lanes in the low four bits, oracle's in the
    // high) and added after it; the next chunk screens with the bins they raised.
    constexpr size_t kChunk = 256;
    uint8_t to_add[kChunk / 4];
    size_t j = 0;
    while (j + 4 <= n) {
        const size_t j0 = j, end = j + std::min(kChunk, (n - j) / 4 * 4);
        const DeferredMaxRel::Bins bins_k = rel_k.bins(), bins_o = rel_o.bins();
        for (; j < end; j += 4) {
            const __m256d Yk = _mm256_cvtps_pd(_mm_loadu_ps(yk + j)), Yo = _mm256_cvtps_pd(_mm_loadu_ps(yo + j));
            const __m256d Rk = _mm256_loadu_pd(rk + j), Ro = kSharedRef ? Rk : _mm256_loadu_pd(ro + j);
            const PairLanes pk{_mm256_and_pd(Rk, abs_mask), _mm256_and_pd(_mm256_sub_pd(Yk, Rk), abs_mask)};
            const PairLanes po{_mm256_and_pd(Ro, abs_mask), _mm256_and_pd(_mm256_sub_pd(Yo, Ro), abs_mask)};
            // Squared errors and references, four chains advanced by one add per element.
            const __m256d sk = _mm256_mul_pd(pk.err, pk.err), qk = _mm256_mul_pd(Rk, Rk);
            const __m256d so = _mm256_mul_pd(po.err, po.err), qo = _mm256_mul_pd(Ro, Ro);
            const __m256d t0 = _mm256_unpacklo_pd(sk, qk), t1 = _mm256_unpackhi_pd(sk, qk);
            const __m256d t2 = _mm256_unpacklo_pd(so, qo), t3 = _mm256_unpackhi_pd(so, qo);
            sums = _mm256_add_pd(sums, _mm256_permute2f128_pd(t0, t2, 0x20));
            sums = _mm256_add_pd(sums, _mm256_permute2f128_pd(t1, t3, 0x20));
            sums = _mm256_add_pd(sums, _mm256_permute2f128_pd(t0, t2, 0x31));
            sums = _mm256_add_pd(sums, _mm256_permute2f128_pd(t1, t3, 0x31));
            // Kernel against oracle: two chains in one 128-bit add per element.
            const __m256d d = _mm256_sub_pd(Yk, Yo);
            const __m256d dd = _mm256_mul_pd(d, d), oo = _mm256_mul_pd(Yo, Yo);
            const __m256d u0 = _mm256_unpacklo_pd(dd, oo), u1 = _mm256_unpackhi_pd(dd, oo);
            ko = _mm_add_pd(ko, _mm256_castpd256_pd128(u0));
            ko = _mm_add_pd(ko, _mm256_castpd256_pd128(u1));
            ko = _mm_add_pd(ko, _mm256_extractf128_pd(u0, 1));
            ko = _mm_add_pd(ko, _mm256_extractf128_pd(u1, 1));
            // Maxima: a NaN error noted apart (max_pd returns its second operand when one is NaN).
            max_k = _mm256_max_pd(pk.err, max_k);
            max_o = _mm256_max_pd(po.err, max_o);
            nan_k = _mm256_or_pd(nan_k, _mm256_cmp_pd(pk.err, pk.err, _CMP_UNORD_Q));
            nan_o = _mm256_or_pd(nan_o, _mm256_cmp_pd(po.err, po.err, _CMP_UNORD_Q));
            ref_k = _mm256_max_pd(pk.abs_ref, ref_k);
            ref_o = _mm256_max_pd(po.abs_ref, ref_o);
            alignas(16) int32_t bin_k[4], bin_o[4];
            _mm_store_si128(reinterpret_cast<__m128i*>(bin_k), bin_of(bins_k, pk.abs_ref));
            if (!kSharedRef) _mm_store_si128(reinterpret_cast<__m128i*>(bin_o), bin_of(bins_o, po.abs_ref));
            to_add[(j - j0) / 4] =
                uint8_t(maybe_kept(bins_k, bin_k, pk) | maybe_kept(bins_o, kSharedRef ? bin_k : bin_o, po) << 4);
        }
        for (size_t g = 0; g < (end - j0) / 4; ++g) {
            if (!to_add[g]) continue;
            for (size_t lane = 0; lane < 4; ++lane) {
                const size_t i = j0 + 4 * g + lane;
                if (to_add[g] >> lane & 1) rel_k.add(std::fabs(rk[i]), std::fabs(double(yk[i]) - rk[i]) / std::fabs(rk[i]));
                if (to_add[g] >> (4 + lane) & 1)
                    rel_o.add(std::fabs(ro[i]), std::fabs(double(yo[i]) - ro[i]) / std::fabs(ro[i]));
            }
        }
    }
    alignas(32) double s[4], mk[4], mo[4], fk[4], fo[4];
    _mm256_store_pd(s, sums);
    ek.sq_err = s[0];
    ek.sq_ref = s[1];
    eo.sq_err = s[2];
    eo.sq_ref = s[3];
    se_ko = _mm_cvtsd_f64(ko);
    sq_o = _mm_cvtsd_f64(_mm_unpackhi_pd(ko, ko));
    _mm256_store_pd(mk, max_k);
    _mm256_store_pd(mo, max_o);
    _mm256_store_pd(fk, ref_k);
    _mm256_store_pd(fo, ref_o);
    fold_max(ek, mk, _mm256_movemask_pd(nan_k) != 0, fk);
    fold_max(eo, mo, _mm256_movemask_pd(nan_o) != 0, fo);
    compare_row_pair_portable(yk, yo, rk, ro, j, n, ek, eo, rel_k, rel_o, se_ko, sq_o);
}

}  // namespace
#endif

void compare_row_pair(const float* yk, const float* yo, const double* rk, const double* ro, size_t n,
                      ErrorAccumulator& ek, ErrorAccumulator& eo, DeferredMaxRel& rel_k, DeferredMaxRel& rel_o,
                      double& se_ko, double& sq_o) {
#if defined(__x86_64__) && defined(__GNUC__)
    static const bool avx2 = __builtin_cpu_supports("avx2");
    if (avx2) {
        const DeferredMaxRel::Bins bk = rel_k.bins(), bo = rel_o.bins();
        const bool shared = rk == ro && bk.e0 == bo.e0 && bk.count == bo.count && bk.shift == bo.shift;
        return shared ? compare_row_pair_avx2<true>(yk, yo, rk, ro, n, ek, eo, rel_k, rel_o, se_ko, sq_o)
                      : compare_row_pair_avx2<false>(yk, yo, rk, ro, n, ek, eo, rel_k, rel_o, se_ko, sq_o);
    }
#endif
    compare_row_pair_portable(yk, yo, rk, ro, 0, n, ek, eo, rel_k, rel_o, se_ko, sq_o);
}

ErrorMetrics error_metrics(const std::vector<float>& y, const std::vector<double>& ref) {
    ErrorAccumulator a;
    for (size_t c = 0; c < y.size(); ++c) a.add(y[c], ref[c]);
    const double floor = 1e-3 * a.max_ref;
    double mr = 0;
    for (size_t c = 0; c < y.size(); ++c)
        if (std::fabs(ref[c]) >= floor && std::fabs(ref[c]) > 0)
            mr = std::max(mr, std::fabs(double(y[c]) - ref[c]) / std::fabs(ref[c]));
    return a.metrics(mr);
}

double rel_l2(const std::vector<float>& a, const std::vector<float>& b) {
    double se = 0, sr = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        const double d = double(a[i]) - double(b[i]);
        se += d * d;
        sr += double(b[i]) * double(b[i]);
    }
    return sr > 0 ? std::sqrt(se / sr) : std::sqrt(se);
}

void judge(OutputCheck& o) {
    if (std::isnan(o.kernel.max_abs_err)) o.kernel_err_over_tol = INFINITY;
    o.kernel_pass = o.kernel_err_over_tol <= 1.0;
    o.oracle_pass = o.oracle_err_over_tol <= 1.0;
}

}  // namespace bnsim::num
