#pragma once
// Reproducible random inputs: values drawn from a distribution by a counter-based generator
// (value i is a function of (seed, salt, i) alone), so any range can be generated on its own, by
// any thread, and the values do not depend on how the work is split; and rounding to the dtype
// a kernel reads them in.
#include <cstdint>

#include "numerics/buffer.h"
#include "numerics/typed_array.h"
#include "trace/dtype.h"

namespace bnsim::num {

struct Distribution {
    enum Kind { normal, uniform } kind = normal;
    double mean = 0.0;
    double spread = 1.0;  // normal: standard deviation; uniform: half-width around the mean
};

uint64_t splitmix64(uint64_t& s);

// xoshiro256** (public-domain algorithm by Blackman and Vigna), seeded through splitmix64.
class Rng {
public:
    explicit Rng(uint64_t seed);
    uint64_t next();
    double uniform() { return double(next() >> 11) * (1.0 / 9007199254740992.0); }  // [0, 1)
    double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }

private:
    uint64_t s_[4];
};

// Values [i0, i0 + n) of the stream (seed, salt) into out (fp32, unrounded). Value i is
// SplitMix64's output for counter i of a key made from (seed, salt) (Steele, Lea and Flood,
// "Fast splittable pseudorandom number generators", OOPSLA 2014), mapped to the distribution:
// uniform directly; normal through the inverse normal CDF (Acklam's rational approximation,
// relative error below 1.2e-9; log and sqrt only in the 4.85% tails), so a block of values is a
// few vectorizable loops, not a rejection loop.
void fill_range(const Distribution& d, uint64_t seed, uint64_t salt, uint64_t i0, size_t n, float* out);
// The same values by plain loops (fill_range uses AVX2 where the processor has it; the test
// holds the two bit-identical).
void fill_range_portable(const Distribution& d, uint64_t seed, uint64_t salt, uint64_t i0, size_t n, float* out);

// Fills v from the distribution, rounded to dt; (seed, salt) pick the stream, so two tensors
// drawn with the same seed and different salts are independent. Runs in chunks on `threads`
// threads (0: one per hardware thread); the values do not depend on the thread count.
void fill(BigVector<float>& v, const Distribution& d, uint64_t seed, uint64_t salt, DType dt, int threads = 0);
// The same values, stored in v's dtype (rounded to nearest-even for bf16: the same bf16 values as
// the fp32 fill rounded to bf16).
void fill(TypedArray& v, const Distribution& d, uint64_t seed, uint64_t salt, int threads = 0);

// Rounds to the dtype (bf16 by round-to-nearest-even; fp32 unchanged).
void round_to_dtype(BigVector<float>& v, DType dt);

}  // namespace bnsim::num
