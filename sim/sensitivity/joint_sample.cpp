#include "sim/sensitivity/joint_sample.h"

#include <algorithm>
#include <cmath>

#include "sim/sampling/halton.h"

namespace bnsim {

std::vector<std::vector<double>> joint_sample(const std::vector<UncertainParam>& params, int samples) {
    const size_t n = params.size();
    if (n == 0 || n > Halton::kMaxDims || samples <= 0) return {};
    const Halton halton(n, true);
    std::vector<std::vector<double>> values(size_t(samples), std::vector<double>(n, 0.0));
    for (int k = 0; k < samples; ++k)
        for (size_t i = 0; i < n; ++i) {
            const auto& p = params[i];
            double v = p.lo + halton.at(unsigned(k + 1), i) * (p.hi - p.lo);
            if (p.kind != ParamKind::real) v = std::round(v);
            values[size_t(k)][i] = v;
        }
    return values;
}

double percentile(std::vector<double> v, double q) {
    std::sort(v.begin(), v.end());
    const double pos = q * double(v.size() - 1);
    const size_t i = size_t(pos);
    return i + 1 < v.size() ? v[i] + (pos - double(i)) * (v[i + 1] - v[i]) : v.back();
}

}  // namespace bnsim
