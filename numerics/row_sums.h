#pragma once
// Sums of many rows, each added in element order in fp32 (as an engine's reduce adds a
// partition's elements, one after another), with several rows side by side so that their
// chains of additions overlap instead of waiting on one another.
#include <cstddef>

namespace bnsim::num {

// sums[k] += x[k * stride + j] for j = 0..n-1 in order, for each row k < rows: the same bits as
// that loop.
void add_rows_in_order(const float* x, size_t stride, size_t rows, size_t n, float* sums);

}  // namespace bnsim::num
