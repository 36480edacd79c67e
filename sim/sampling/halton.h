#pragma once
// Halton points: low-discrepancy samples of the unit cube, one van der Corput sequence per
// dimension with the dimension's prime as its base. `fit` samples its search box with them, the
// joint uncertainty band the estimated parameters' ranges. Scrambled, each dimension's digits go
// through a fixed random permutation (seeded, so runs repeat): unscrambled, a dimension whose base
// exceeds the number of points just counts up, in step with every other such dimension, and their
// effects cannot be told apart.
#include <cstddef>
#include <vector>

namespace bnsim {

class Halton {
public:
    static constexpr size_t kMaxDims = 32;
    // dims <= kMaxDims.
    Halton(size_t dims, bool scrambled);
    // Coordinate `dim` of point `index` (index >= 1; point 0 is the origin), in [0, 1).
    double at(unsigned index, size_t dim) const;

private:
    std::vector<std::vector<unsigned>> digits_;  // per dimension: the permutation of its base's digits
};

}  // namespace bnsim
