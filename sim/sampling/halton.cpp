#include "sim/sampling/halton.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <stdexcept>

namespace bnsim {

namespace {

constexpr unsigned kPrimes[Halton::kMaxDims] = {2,  3,  5,  7,  11, 13, 17, 19, 23, 29, 31,  37,  41,  43,  47,  53,
                                                59, 61, 67, 71, 73, 79, 83, 89, 97, 101, 103, 107, 109, 113, 127, 131};

}  // namespace

Halton::Halton(size_t dims, bool scrambled) : digits_(dims) {
    if (dims > kMaxDims) throw std::logic_error("Halton: more dimensions than primes");
    for (size_t i = 0; i < dims; ++i) {
        digits_[i].resize(kPrimes[i]);
        std::iota(digits_[i].begin(), digits_[i].end(), 0u);
        if (!scrambled) continue;
        std::mt19937 rng(unsigned(2026 + i));
        std::shuffle(digits_[i].begin() + 1, digits_[i].end(), rng);  // 0 stays 0: no digit, no offset
    }
}

double Halton::at(unsigned index, size_t dim) const {
    const std::vector<unsigned>& d = digits_[dim];
    const unsigned base = unsigned(d.size());
    double f = 1, r = 0;
    for (; index > 0; index /= base) {
        f /= base;
        r += f * d[index % base];
    }
    return r;
}

}  // namespace bnsim
