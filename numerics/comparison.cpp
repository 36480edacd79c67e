#include "numerics/comparison.h"

#include "numerics/vector_clones.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

namespace bnsim::num {

void ErrorAccumulator::merge(const ErrorAccumulator& o) {
    if (std::isnan(max_abs) || std::isnan(o.max_abs)) max_abs = NAN;
    else max_abs = std::max(max_abs, o.max_abs);
    sq_err += o.sq_err;
    sq_ref += o.sq_ref;
    max_ref = std::max(max_ref, o.max_ref);
}

ErrorMetrics ErrorAccumulator::metrics(double max_rel_err) const {
    ErrorMetrics m;
    m.max_abs_err = max_abs;
    m.rel_l2_err = sq_ref > 0 ? std::sqrt(sq_err / sq_ref) : std::sqrt(sq_err);
    m.max_abs_ref = max_ref;
    m.max_rel_err = max_rel_err;
    return m;
}

BNSIM_VECTOR_CLONES void DeferredMaxRel::add_row(const double* abs_ref, const double* rel_err, size_t n) {
    const std::array<double, kBins> beaten = beaten_;
    const int e0 = e0_;
    // A flag per pair that add() might keep (a loop without branches, vectorized), then the few
    // flagged pairs through add() in order, eight flags tested at a time.
    thread_local std::vector<uint8_t> open;
    open.assign(n + 8, 0);
    uint8_t* flag = open.data();
    for (size_t j = 0; j < n; ++j) {
        const int bin = std::min(std::max(exponent(abs_ref[j]) - e0, 0), kBins - 1);
        flag[j] = !(rel_err[j] <= beaten[size_t(bin)]);
    }
    for (size_t j = 0; j < n; j += 8) {
        uint64_t w;
        std::memcpy(&w, flag + j, 8);
        if (!w) continue;
        for (size_t k = j; k < std::min(n, j + 8); ++k)
            if (flag[k]) add(abs_ref[k], rel_err[k]);
    }
}

void DeferredMaxRel::insert(double abs_ref, double rel_err, int bin) {
    // First step whose |r| is below abs_ref: the steps before it have |r| >= abs_ref.
    const size_t i = size_t(std::partition_point(steps_.begin(), steps_.end(),
                                                 [&](const Step& s) { return s.abs_ref >= abs_ref; }) -
                            steps_.begin());
    if (i > 0 && steps_[i - 1].rel_err >= rel_err) return;  // beaten by a larger |r|
    size_t j = i;
    while (j < steps_.size() && steps_[j].rel_err <= rel_err) ++j;  // the steps it beats
    if (j > i) {
        steps_[i] = {abs_ref, rel_err};
        steps_.erase(steps_.begin() + long(i) + 1, steps_.begin() + long(j));
    } else {
        steps_.insert(steps_.begin() + long(i), {abs_ref, rel_err});
    }
    for (int k = 0; k < bin; ++k) beaten_[size_t(k)] = std::max(beaten_[size_t(k)], rel_err);
}

ErrorMetrics error_metrics(const std::vector<float>& y, const std::vector<double>& ref) {
    ErrorAccumulator a;
    for (size_t c = 0; c < y.size(); ++c) a.add(y[c], ref[c]);
    const double floor = 1e-3 * a.max_ref;
    double mr = 0;
    for (size_t c = 0; c < y.size(); ++c)
        if (std::fabs(ref[c]) >= floor && std::fabs(ref[c]) > 0)
            mr = std::max(mr, std::fabs(double(y[c]) - ref[c]) / std::fabs(ref[c]));
    return a.metrics(mr);
}

double rel_l2(const std::vector<float>& a, const std::vector<float>& b) {
    double se = 0, sr = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        const double d = double(a[i]) - double(b[i]);
        se += d * d;
        sr += double(b[i]) * double(b[i]);
    }
    return sr > 0 ? std::sqrt(se / sr) : std::sqrt(se);
}

void judge(OutputCheck& o) {
    if (std::isnan(o.kernel.max_abs_err)) o.kernel_err_over_tol = INFINITY;
    o.kernel_pass = o.kernel_err_over_tol <= 1.0;
    o.oracle_pass = o.oracle_err_over_tol <= 1.0;
}

}  // namespace bnsim::num
