// bf16 round-to-nearest-even and the reduced-precision operand path, against hand values.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>

#include "numerics/bf16.h"
#include "numerics/device_memory.h"

using namespace bnsim;
using namespace bnsim::num;

TEST_CASE("bf16: exact values convert both ways", "[numerics][bf16]") {
    CHECK(f32_to_bf16(1.0f) == 0x3F80);
    CHECK(f32_to_bf16(-2.5f) == 0xC020);
    CHECK(f32_to_bf16(0.0f) == 0x0000);
    CHECK(f32_to_bf16(-0.0f) == 0x8000);
    CHECK(bf16_to_f32(0x3F80) == 1.0f);
    CHECK(bf16_to_f32(0x4049) == 3.140625f);
    CHECK(bf16_to_f32(0x7F80) == std::numeric_limits<float>::infinity());
}

TEST_CASE("bf16: round to nearest, ties to even", "[numerics][bf16]") {
    // pi: 1.5707963 * 2, 7 fraction bits -> 201/128 * 2 = 3.140625 (0x4049); below half an ulp.
    CHECK(f32_to_bf16(3.14159265f) == 0x4049);
    // 1 + 2^-8 is exactly halfway between 1 (0x3F80, even) and 1 + 2^-7 (0x3F81): stays even.
    CHECK(f32_to_bf16(1.00390625f) == 0x3F80);
    // 1 + 3*2^-8 is halfway between 0x3F81 (odd) and 0x3F82 (even): goes up to even.
    CHECK(f32_to_bf16(1.01171875f) == 0x3F82);
    // Just above the halfway point rounds up.
    CHECK(f32_to_bf16(1.00390625f + 1.0f / 1048576.0f) == 0x3F81);
    // Just below rounds down.
    CHECK(f32_to_bf16(1.0078125f - 1.0f / 1048576.0f) == 0x3F81);
    CHECK(f32_to_bf16(1.00390625f - 1.0f / 1048576.0f) == 0x3F80);
    // Negative values round symmetrically.
    CHECK(f32_to_bf16(-1.01171875f) == 0xBF82);
    // A carry out of the mantissa bumps the exponent: 1.99609375 + a bit -> 2.0.
    CHECK(f32_to_bf16(1.998046875f) == 0x4000);
    // The largest float rounds up to infinity; NaN stays NaN.
    CHECK(f32_to_bf16(std::numeric_limits<float>::max()) == 0x7F80);
    CHECK(std::isnan(bf16_to_f32(f32_to_bf16(std::nanf("")))));
    CHECK(round_bf16(0.1f) == 0.10009765625f);
}

TEST_CASE("operand path: rounding fp32 to fewer significand bits", "[numerics][bf16]") {
    CHECK(round_to_bits(0.1f, 24) == 0.1f);
    CHECK(round_to_bits(0.1f, 8) == round_bf16(0.1f));
    // 18 significand bits: values in [0.5, 1) sit on a 2^-18 grid.
    const float x = 0.50650179f;
    const float r = round_to_bits(x, 18);
    const double grid = std::ldexp(1.0, -18);
    CHECK(std::fabs(double(r) / grid - std::round(double(r) / grid)) == 0.0);
    CHECK(std::fabs(double(r) - double(x)) <= grid / 2);
    CHECK(double(r) == Approx(132776 * grid).epsilon(0));
    // The measured trn2 error (0.50649989 vs 0.50650179, 1.9e-6) is the size of this path's
    // resolution at 0.5: about 2^-18 relative.
    CHECK(std::fabs(0.50649989 - 0.50650179) / 0.5065 == Approx(std::ldexp(1.0, -18)).epsilon(0.05));
    // Ties to even at 2 bits: 1.25 is halfway between 1.0 and 1.5 -> 1.0; 1.75 -> 2.0.
    CHECK(round_to_bits(1.25f, 2) == 1.0f);
    CHECK(round_to_bits(1.75f, 2) == 2.0f);
    CHECK(unit_roundoff(24) == std::ldexp(1.0, -24));
}

TEST_CASE("element conversion: bf16, fp32 and uint8 rows", "[numerics][bf16]") {
    const float in[4] = {1.0f, 1.00390625f, -3.14159265f, 255.6f};
    uint8_t b16[8], f32b[16], u8[4];
    store_elems(in, DType::bf16, 4, b16);
    store_elems(in, DType::fp32, 4, f32b);
    store_elems(in, DType::u8, 4, u8);
    float out[4];
    load_elems(b16, DType::bf16, 4, out);
    CHECK(out[0] == 1.0f);
    CHECK(out[1] == 1.0f);
    CHECK(out[2] == -3.140625f);
    load_elems(f32b, DType::fp32, 4, out);
    CHECK(std::memcmp(out, in, sizeof in) == 0);
    CHECK(u8[0] == 1);
    CHECK(u8[2] == 0);    // saturates at 0
    CHECK(u8[3] == 255);  // and at 255
    load_elems(u8, DType::u8, 4, out);
    CHECK(out[0] == 1.0f);
}

TEST_CASE("store_elems rounds to bf16 exactly as f32_to_bf16, NaN and infinity included") {
    std::vector<float> v;
    for (uint64_t u = 0; u <= 0xffffffffull; u += 0x10001ull) v.push_back(bnsim::num::f32_from_bits(uint32_t(u)));
    for (uint32_t u : {0x7f800000u, 0xff800000u, 0x7f800001u, 0x7fffffffu, 0xffc00000u, 0x7f7fffffu, 0x00000001u,
                       0x3f808000u, 0x3f818000u, 0x3f80ffffu})
        v.push_back(bnsim::num::f32_from_bits(u));
    std::vector<uint8_t> out(v.size() * 2);
    bnsim::num::store_elems(v.data(), bnsim::DType::bf16, v.size(), out.data());
    size_t bad = 0;
    for (size_t i = 0; i < v.size(); ++i) {
        uint16_t h;
        std::memcpy(&h, out.data() + 2 * i, 2);
        bad += h != bnsim::num::f32_to_bf16(v[i]);
    }
    CHECK(bad == 0);
}
