#pragma once
// Agreement statistics between measured and predicted values.
#include <optional>
#include <vector>

namespace bnsim {

// Signed error of a prediction in percent of the measurement.
double error_pct(double measured, double predicted);

// Ranks 1..n, ties sharing the average of the ranks they span.
std::vector<double> average_ranks(const std::vector<double>& v);

// Spearman rank correlation: the Pearson correlation of the average ranks. nullopt with fewer
// than two values or when either side is constant (the correlation is undefined).
std::optional<double> spearman(const std::vector<double>& a, const std::vector<double>& b);

// Quantile q in [0, 1] of v by linear interpolation between order statistics (v not empty).
double quantile(std::vector<double> v, double q);

}  // namespace bnsim
