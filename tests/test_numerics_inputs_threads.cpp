// Generated inputs do not depend on the number of threads that generate them.
#include <catch2/catch.hpp>

#include <atomic>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <utility>
#include <vector>

#include "kernels/batch_norm_bwd/numerics/inputs.h"
#include "numerics/parallel.h"
#include "numerics/random.h"

using namespace bnsim;

namespace {

bool same_bits(const float* a, const float* b, size_t n) { return std::memcmp(a, b, n * sizeof(float)) == 0; }
bool same_bits(const num::TypedArray& a, const num::TypedArray& b) {
    return a.dtype == b.dtype && a.bytes.size() == b.bytes.size() &&
           std::memcmp(a.bytes.data(), b.bytes.data(), a.bytes.size()) == 0;
}

}  // namespace

TEST_CASE("generated inputs are bit-identical for 1, 2, 3 and 8 threads") {
    bn::Params p;
    p.shape = {3, 5, 2, 129, 131};  // 506,610 elements: 8 chunks, the last one partial
    p.fuse_relu = true;
    p.mask_supplied = true;
    for (DType dt : {DType::bf16, DType::fp32}) {
        p.dtype = dt;
        bn::InputSpec spec;
        spec.seed = 7;
        spec.dy.kind = num::Distribution::uniform;
        const bn::BnInputs one = bn::generate_inputs(p, spec, 1);
        for (int threads : {2, 3, 8}) {
            INFO("threads " << threads << ", dtype " << dtype_name(dt));
            const bn::BnInputs many = bn::generate_inputs(p, spec, threads);
            REQUIRE(many.x_in.size() == one.x_in.size());
            CHECK(same_bits(many.x_in, one.x_in));
            CHECK(same_bits(many.dy, one.dy));
            CHECK(same_bits(many.means.data(), one.means.data(), one.means.size()));
            CHECK(same_bits(many.variances.data(), one.variances.data(), one.variances.size()));
            CHECK(many.relu_mask == one.relu_mask);
        }
        // Chunks are independent streams: no two 65,536-element chunks repeat each other.
        const size_t e = one.x_in.elem_bytes();
        CHECK(std::memcmp(one.x_in.bytes.data(), one.x_in.bytes.data() + 65536 * e, 1024 * e) != 0);
    }
}

TEST_CASE("random values are counter-based: any range generated alone equals the same range of the whole") {
    num::Distribution d;
    num::BigVector<float> whole(200000);
    num::fill(whole, d, 3, 1, DType::fp32, 2);
    for (uint64_t i0 : {uint64_t(0), uint64_t(1), uint64_t(65535), uint64_t(123457)}) {
        std::vector<float> part(777);
        num::fill_range(d, 3, 1, i0, part.size(), part.data());
        CHECK(same_bits(part.data(), whole.data() + i0, part.size()));
    }
    // The normal's moments, and its tails (the inverse CDF's tail branch): 200,000 draws.
    double s = 0, s2 = 0;
    int64_t beyond2 = 0;
    for (float x : whole) {
        s += x;
        s2 += double(x) * x;
        beyond2 += std::fabs(x) > 2.0f;
    }
    const double n = double(whole.size()), mean = s / n, var = s2 / n - mean * mean;
    CHECK(std::fabs(mean) < 5 * std::sqrt(1.0 / n));
    CHECK(std::fabs(var - 1.0) < 5 * std::sqrt(2.0 / n));
    // P(|z| > 2) = 0.0455: the count is binomial, sd sqrt(n p (1 - p)) ~ 93.
    CHECK(std::fabs(double(beyond2) - 0.0455 * n) < 5 * 93);
}

TEST_CASE("random values: the vectorized generator gives the plain loops' bits for every distribution") {
    num::Distribution normal, shifted, far, uniform;
    shifted.mean = -3.25;
    shifted.spread = 0.125;
    far.mean = 1000.0;  // mean + spread * z rounds away most of z's bits
    far.spread = 3.0;
    uniform.kind = num::Distribution::uniform;
    uniform.mean = 1.5;
    uniform.spread = 2.0;
    for (const num::Distribution& d : {normal, shifted, far, uniform})
        for (uint64_t salt : {uint64_t(1), uint64_t(2)})
            // Ranges of every length modulo the vector width, starting anywhere, and long ones
            // holding thousands and a hundred thousand tail values.
            for (auto [i0, n] : {std::pair<uint64_t, size_t>{0, 1}, {1, 2}, {5, 3}, {7, 4}, {9, 5}, {1023, 1029},
                                 {uint64_t(1) << 40, 70001}, {uint64_t(3) << 20, size_t(1) << 21},
                                 {~uint64_t(0) - 100, 50}}) {
                INFO("kind " << d.kind << " salt " << salt << " i0 " << i0 << " n " << n);
                std::vector<float> fast(n), plain(n);
                num::fill_range(d, 17, salt, i0, n, fast.data());
                num::fill_range_portable(d, 17, salt, i0, n, plain.data());
                CHECK(same_bits(fast.data(), plain.data(), n));
            }
}

TEST_CASE("parallel_for runs every item once on any number of threads and rethrows an item's error") {
    for (int threads : {1, 2, 5}) {
        INFO(threads << " threads");
        std::vector<std::atomic<int>> hits(1000);
        num::parallel_for(hits.size(), threads, [&](size_t i) { ++hits[i]; });
        bool once = true;
        for (auto& h : hits) once = once && h.load() == 1;
        CHECK(once);
        CHECK_THROWS_WITH(num::parallel_for(50, threads,
                                            [](size_t i) {
                                                if (i == 31) throw std::runtime_error("item 31");
                                            }),
                          "item 31");
    }
}

TEST_CASE("generated statistics: each row of x_in added in order, the rows in batch order, bit for bit") {
    // B = 19 takes both groupings of rows the statistics use (sixteen, and four with a short
    // last group); S = 21 leaves values over after blocks of four.
    bn::Params p;
    p.shape = {19, 3, 1, 3, 7};
    p.dtype = DType::bf16;
    bn::InputSpec spec;
    spec.seed = 11;
    spec.x_in.mean = 0.75;  // deviations from the mean differ from the values
    const bn::BnInputs in = bn::generate_inputs(p, spec, 2);
    const int64_t B = 19, C = 3, S = 21;
    const double N = double(B * S);
    for (int64_t c = 0; c < C; ++c) {
        auto total = [&](auto term) {
            double t = 0;
            for (int64_t b = 0; b < B; ++b) {
                double row = 0;
                for (int64_t s = 0; s < S; ++s) row += term(in.x_in[size_t((b * C + c) * S + s)]);
                t += row;
            }
            return t;
        };
        const double m = total([](float v) { return double(v); }) / N;
        const double sq = total([m](float v) { return (v - m) * (v - m); });
        INFO("channel " << c);
        CHECK(in.means[size_t(c)] == float(m));
        CHECK(in.variances[size_t(c)] == float(sq / N));
    }
}
