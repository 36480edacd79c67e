#pragma once
// Joint samples of the estimated parameters: every one varied at once over its range, by a
// scrambled Halton sequence (sim/sampling/halton.h), integers rounded and flags 0 or 1. The joint band of
// `run --uncertainty` and tune's robustness check both draw theirs here, so they see the same
// hardware scenarios.
#include <cstddef>
#include <vector>

#include "sim/sensitivity/uncertain_params.h"

namespace bnsim {

// samples[k][i]: parameter i's value in sample k. Empty when there are no parameters or more
// than the sequence has dimensions (Halton::kMaxDims).
std::vector<std::vector<double>> joint_sample(const std::vector<UncertainParam>& params, int samples);

// The q-quantile (q in [0, 1]) of v, linear between order statistics; v not empty.
double percentile(std::vector<double> v, double q);

}  // namespace bnsim
