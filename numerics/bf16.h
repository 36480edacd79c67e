#pragma once
// Bit-exact float conversions of the engines: bf16 <-> fp32 with round-to-nearest-even (the
// hardware's default rounding), and rounding an fp32 value to fewer significand bits (the
// ~2^-18 per-partition scale/bias operand path).
#include <cstdint>
#include <cstring>

namespace bnsim::num {

inline uint32_t f32_bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}
inline float f32_from_bits(uint32_t u) {
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

inline float bf16_to_f32(uint16_t h) { return f32_from_bits(uint32_t(h) << 16); }

// Round-to-nearest, ties to even. NaN stays NaN (quietened); overflow rounds to infinity.
inline uint16_t f32_to_bf16(float f) {
    uint32_t u = f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x0040u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return uint16_t(u >> 16);
}

inline float round_bf16(float f) { return bf16_to_f32(f32_to_bf16(f)); }

// Rounds f to `bits` significand bits (including the implicit one; fp32 has 24, bf16 8),
// nearest-even. bits >= 24 returns f unchanged.
inline float round_to_bits(float f, int bits) {
    if (bits >= 24) return f;
    uint32_t u = f32_bits(f);
    if ((u & 0x7f800000u) == 0x7f800000u) return f;  // inf / NaN
    const int shift = 24 - (bits < 1 ? 1 : bits);
    const uint32_t half = (1u << (shift - 1)) - 1u;
    u += half + ((u >> shift) & 1u);
    u &= ~((1u << shift) - 1u);
    return f32_from_bits(u);
}

// Unit roundoff (half an ulp, relative) of a format with `bits` significand bits.
inline double unit_roundoff(int bits) { return 1.0 / double(uint64_t(1) << bits); }

}  // namespace bnsim::num
