#include "kernels/batch_norm_bwd/numerics/inputs.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <sys/stat.h>

#include "numerics/npy.h"
#include "numerics/parallel.h"
#include "numerics/random.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

namespace bnsim::bn {

using namespace num;
namespace {

std::vector<int64_t> full_shape(const Shape& s) { return {s.B, s.C, s.D, s.H, s.W}; }

// The sums of term(x) over each of four rows of n values, every row added in order k = 0..n-1:
// four independent chains of additions side by side instead of one after the other.
template <typename T>
void four_row_sums(const float* x, size_t n, T term, double* out) {
    const float *x0 = x, *x1 = x + n, *x2 = x + 2 * n, *x3 = x + 3 * n;
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (size_t k = 0; k < n; ++k) {
        s0 += term(x0[k]);
        s1 += term(x1[k]);
        s2 += term(x2[k]);
        s3 += term(x3[k]);
    }
    out[0] = s0;
    out[1] = s1;
    out[2] = s2;
    out[3] = s3;
}

#if defined(__x86_64__) && defined(__GNUC__)
// four_row_sums of sixteen rows (x: the rows one after another) with AVX2, four rows per vector:
// blocks of four values of four rows transposed so that one add advances four rows by one value
// each, every row still added in order; term is double(v) or, with kSquares, (v - m)^2.
template <bool kSquares>
__attribute__((target("avx2"))) void sixteen_row_sums_avx2(const float* x, size_t n, double m, double* out) {
    const __m256d mv = _mm256_set1_pd(m);
    __m256d acc[4] = {_mm256_setzero_pd(), _mm256_setzero_pd(), _mm256_setzero_pd(), _mm256_setzero_pd()};
    size_t k = 0;
    for (; k + 4 <= n; k += 4)
        for (size_t g = 0; g < 4; ++g) {
            const float* r = x + 4 * g * n + k;
            __m128 v[4] = {_mm_loadu_ps(r), _mm_loadu_ps(r + n), _mm_loadu_ps(r + 2 * n), _mm_loadu_ps(r + 3 * n)};
            _MM_TRANSPOSE4_PS(v[0], v[1], v[2], v[3]);
            for (const __m128 c : v) {
                __m256d t = _mm256_cvtps_pd(c);
                if (kSquares) {
                    const __m256d d = _mm256_sub_pd(t, mv);
                    t = _mm256_mul_pd(d, d);
                }
                acc[g] = _mm256_add_pd(acc[g], t);
            }
        }
    for (size_t g = 0; g < 4; ++g) _mm256_storeu_pd(out + 4 * g, acc[g]);
    for (size_t row = 0; row < 16; ++row)  // the last n % 4 values of each row
        for (size_t j = k; j < n; ++j) {
            const double v = double(x[row * n + j]);
            out[row] += kSquares ? (v - m) * (v - m) : v;
        }
}
#endif

// Per channel, in the same order as a batch-outer loop would add them (so any thread count gives
// the same bits): the sum over b of each row's sum, then likewise the squared deviations.
// x_row(r, out) gives row r = b*C + c of x_in as fp32.
void forward_stats(BnInputs& in, int threads, const std::function<void(int64_t, float*)>& x_row) {
    const int64_t B = in.shape.B, C = in.shape.C, S = in.shape.spatial();
    const double N = double(B * S);
    in.means.resize(size_t(C));
    in.variances.resize(size_t(C));
#if defined(__x86_64__) && defined(__GNUC__)
    static const bool avx2 = __builtin_cpu_supports("avx2");
#else
    constexpr bool avx2 = false;
#endif
    parallel_for(size_t(C), threads, [&](size_t c) {
        thread_local std::vector<float> x;
        x.resize(16 * size_t(S));
        // Adds term over channel c's rows to total: row sums sixteen or four rows at a time,
        // added in b order.
        auto channel_sum = [&](auto term, auto sixteen_rows) {
            double total = 0, rows[16];
            int64_t b0 = 0;
            for (; avx2 && b0 + 16 <= B; b0 += 16) {
                for (int64_t r = 0; r < 16; ++r) x_row((b0 + r) * C + int64_t(c), x.data() + size_t(r * S));
                sixteen_rows(x.data(), size_t(S), rows);
                for (const double s : rows) total += s;
            }
            for (; b0 < B; b0 += 4) {
                const int64_t nr = std::min<int64_t>(4, B - b0);
                for (int64_t r = 0; r < 4; ++r)  // a short last group repeats its first row, unused
                    x_row((b0 + (r < nr ? r : 0)) * C + int64_t(c), x.data() + size_t(r * S));
                four_row_sums(x.data(), size_t(S), term, rows);
                for (int64_t r = 0; r < nr; ++r) total += rows[r];
            }
            return total;
        };
#if defined(__x86_64__) && defined(__GNUC__)
        const double m = channel_sum([](float v) { return double(v); },
                                     [](const float* xs, size_t n, double* out) { sixteen_row_sums_avx2<false>(xs, n, 0.0, out); }) / N;
        const double sq = channel_sum([m](float v) { return (v - m) * (v - m); },
                                      [m](const float* xs, size_t n, double* out) { sixteen_row_sums_avx2<true>(xs, n, m, out); });
#else
        auto none = [](const float*, size_t, double*) {};
        const double m = channel_sum([](float v) { return double(v); }, none) / N;
        const double sq = channel_sum([m](float v) { return (v - m) * (v - m); }, none);
#endif
        in.means[c] = float(m);
        in.variances[c] = float(sq / N);
    });
}

// gamma and beta per channel from the seed.
void generate_gamma_beta(BnInputs& in, const InputSpec& spec) {
    Rng r([&] {
        uint64_t k = spec.seed ^ 0x5eedull;
        return splitmix64(k);
    }());
    const int64_t C = in.shape.C;
    in.gamma.resize(size_t(C));
    in.beta.resize(size_t(C));
    for (int64_t c = 0; c < C; ++c) in.gamma[size_t(c)] = float(r.uniform(spec.gamma_lo, spec.gamma_hi));
    for (int64_t c = 0; c < C; ++c) in.beta[size_t(c)] = float(r.uniform(spec.beta_lo, spec.beta_hi));
}

[[noreturn]] void bad(const std::string& path, const std::string& m) { throw NpyError(path + ": " + m); }

// Inputs must be finite: a NaN or infinity would run and make every error metric NaN.
void require_finite(const std::string& path, const float* v, size_t n) {
    for (size_t i = 0; i < n; ++i)
        if (!std::isfinite(v[i]))
            bad(path, "element " + std::to_string(i) + " is " + (std::isnan(v[i]) ? "NaN" : v[i] > 0 ? "+inf" : "-inf") +
                          "; expected finite values");
}

}  // namespace

uint64_t input_bytes(const Params& p) {
    const uint64_t n = uint64_t(p.shape.elements());
    return n * 2 * uint64_t(dtype_size(p.dtype)) + (p.uses_mask() ? n : 0) + uint64_t(p.shape.C) * 16;
}

BnInputs generate_inputs(const Params& p, const InputSpec& spec, int threads) {
    BnInputs in;
    in.shape = p.shape;
    in.dtype = p.dtype;
    in.source = "generated (seed " + std::to_string(spec.seed) + ")";
    const size_t n = size_t(p.shape.elements());
    const size_t S = size_t(p.shape.spatial());
    in.x_in = TypedArray(p.dtype, n);
    in.dy = TypedArray(p.dtype, n);
    fill(in.x_in, spec.x_in, spec.seed, kSaltX, threads);
    fill(in.dy, spec.dy, spec.seed, kSaltDy, threads);
    forward_stats(in, threads, [&](int64_t r, float* out) { in.x_in.load(size_t(r) * S, S, out); });
    generate_gamma_beta(in, spec);
    if (p.uses_mask()) {
        in.relu_mask.resize(n);
        const size_t rows = size_t(p.shape.B * p.shape.C);
        mask_rows(p, in, 0, rows, in.x_in.bytes.data(), in.relu_mask.data());
    }
    return in;
}

BnInputs generate_columns(const Params& p, const InputSpec& spec, int threads) {
    BnInputs in;
    in.shape = p.shape;
    in.dtype = p.dtype;
    in.source = "generated (seed " + std::to_string(spec.seed) + ")";
    const size_t S = size_t(p.shape.spatial()), ds = size_t(dtype_size(p.dtype));
    forward_stats(in, threads, [&](int64_t r, float* out) {
        thread_local std::vector<uint8_t> bytes;
        bytes.resize(S * ds);
        generate_rows(p, spec, kSaltX, uint64_t(r), uint64_t(r) + 1, bytes.data());
        load_elems(bytes.data(), p.dtype, S, out);
    });
    generate_gamma_beta(in, spec);
    return in;
}

void generate_rows(const Params& p, const InputSpec& spec, uint64_t salt, uint64_t lo, uint64_t hi, uint8_t* dst) {
    const Distribution& d = salt == kSaltX ? spec.x_in : spec.dy;
    const uint64_t S = uint64_t(p.shape.spatial());
    const size_t ds = size_t(dtype_size(p.dtype));
    constexpr uint64_t kChunk = uint64_t(1) << 14;
    thread_local std::vector<float> v;
    v.resize(size_t(kChunk));
    for (uint64_t i = lo * S; i < hi * S; i += kChunk) {
        const size_t n = size_t(std::min(kChunk, hi * S - i));
        fill_range(d, spec.seed, salt, i, n, v.data());
        store_elems(v.data(), p.dtype, n, dst + size_t(i - lo * S) * ds);
    }
}

void mask_rows(const Params& p, const BnInputs& cols, uint64_t lo, uint64_t hi, const uint8_t* x, uint8_t* out) {
    const int64_t C = p.shape.C, S = p.shape.spatial();
    const size_t ds = size_t(dtype_size(p.dtype));
    thread_local std::vector<float> xr;
    xr.resize(size_t(S));
    for (uint64_t r = lo; r < hi; ++r) {
        const size_t c = size_t(int64_t(r) % C);
        load_elems(x + size_t(r - lo) * size_t(S) * ds, p.dtype, size_t(S), xr.data());
        const double rs = 1.0 / std::sqrt(double(cols.variances[c]) + p.eps);
        uint8_t* m = out + size_t(r - lo) * size_t(S);
        for (int64_t s = 0; s < S; ++s) {
            const double fwd = (double(xr[size_t(s)]) - cols.means[c]) * rs * cols.gamma[c] + cols.beta[c];
            m[s] = fwd > 0.0;
        }
    }
}

BnInputs read_inputs(const std::string& dir, const Params& p) {
    BnInputs in;
    in.shape = p.shape;
    in.dtype = p.dtype;
    in.source = dir;
    const auto full = full_shape(p.shape);
    const std::vector<int64_t> alt = {p.shape.B, p.shape.C, p.shape.H, p.shape.W};  // 4-D when D == 1
    const int64_t C = p.shape.C;
    auto path = [&](const char* name) { return dir + "/" + name; };
    // Shape and dtype are checked on the header, before the data is read.
    auto load = [&](const char* name, const std::function<void(const NpyHeader&)>& check) {
        struct stat st;
        const std::string f = path(name);
        if (lstat(f.c_str(), &st) != 0) bad(f, "missing (the --inputs directory must hold it)");
        return read_npy(f, check);
    };
    auto want_f32 = [&](const char* name, const NpyHeader& h) {
        if (h.type != NpyType::f32)
            bad(path(name), std::string("dtype '") + npy_type_name(h.type) + "' where float32 is expected ('<f4')");
    };
    auto want_full = [&](const char* name, const NpyHeader& h) {
        if (h.shape != full && !(p.shape.D == 1 && h.shape == alt))
            bad(path(name), "shape " + shape_str(h.shape) + " does not match the run's [B, C, D, H, W] = " + shape_str(full));
    };
    auto big_f32 = [&](const char* name) {
        NpyArray a = load(name, [&](const NpyHeader& h) {
            want_full(name, h);
            want_f32(name, h);
        });
        require_finite(path(name), a.f32.data(), a.f32.size());
        TypedArray v(p.dtype, a.f32.size());  // rounded to the run's dtype
        v.store(0, a.f32.size(), a.f32.data());
        return v;
    };
    auto column = [&](const char* name, bool two_d) {
        NpyArray a = load(name, [&](const NpyHeader& h) {
            if (h.shape != std::vector<int64_t>{C} && h.shape != std::vector<int64_t>{C, 1})
                bad(path(name), "shape " + shape_str(h.shape) + " where [" + std::to_string(C) + (two_d ? ", 1]" : "]") +
                                    " is expected");
            want_f32(name, h);
        });
        require_finite(path(name), a.f32.data(), a.f32.size());
        return std::move(a.f32);
    };
    in.dy = big_f32("dy.npy");
    in.x_in = big_f32("x_in.npy");
    in.means = column("means.npy", false);
    in.variances = column("variances.npy", false);
    in.gamma = column("gamma.npy", true);
    in.beta = column("beta.npy", true);
    for (size_t c = 0; c < in.variances.size(); ++c)
        if (!(in.variances[c] >= 0.0f))
            bad(path("variances.npy"), "variance of channel " + std::to_string(c) + " is negative; expected >= 0");
    if (p.uses_mask()) {
        NpyArray m = load("relu_mask.npy", [&](const NpyHeader& h) {
            want_full("relu_mask.npy", h);
            if (h.type == NpyType::f32)
                bad(path("relu_mask.npy"), "dtype float32 where uint8 or bool is expected");
        });
        for (size_t i = 0; i < m.u8.size(); ++i)
            if (m.u8[i] > 1)
                bad(path("relu_mask.npy"), "element " + std::to_string(i) + " is " + std::to_string(m.u8[i]) +
                                               "; expected 0 or 1");
        in.relu_mask.assign(m.u8.begin(), m.u8.end());
    }
    return in;
}

std::vector<NpyFile> input_files(const BnInputs& in) {
    const auto full = full_shape(in.shape);
    const std::vector<int64_t> col{in.shape.C}, col2{in.shape.C, 1};
    auto f32 = [](std::vector<int64_t> shape, const float* data) {
        return [shape, data](std::ostream& o) { write_npy(o, shape, data); };
    };
    // dy and x_in as float32 while the file is written (they are held in the run's dtype).
    auto big = [&full](const TypedArray& a) {
        return [full, &a](std::ostream& o) {
            std::vector<float> v(a.size());
            a.load(0, v.size(), v.data());
            write_npy(o, full, v.data());
        };
    };
    std::vector<NpyFile> files = {
        {"dy.npy", big(in.dy)},                       {"x_in.npy", big(in.x_in)},
        {"means.npy", f32(col, in.means.data())},     {"variances.npy", f32(col, in.variances.data())},
        {"gamma.npy", f32(col2, in.gamma.data())},    {"beta.npy", f32(col2, in.beta.data())},
    };
    if (!in.relu_mask.empty()) {
        const uint8_t* m = in.relu_mask.data();
        files.push_back({"relu_mask.npy", [full, m](std::ostream& o) { write_npy(o, full, m, NpyType::u8); }});
    }
    return files;
}

}  // namespace bnsim::bn
