#pragma once
// How an output of the emulated kernel (and of an independent oracle) is measured against a
// float64 reference: error metrics, the tolerance they are held to, and pass/fail.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace bnsim::num {

struct ErrorMetrics {
    double max_abs_err = 0;
    double max_rel_err = 0;  // over elements with |ref| >= 1e-3 * max|ref|
    double rel_l2_err = 0;
    double max_abs_ref = 0;
};

struct OutputCheck {
    std::string name;
    ErrorMetrics kernel, oracle;    // against the float64 reference
    double kernel_vs_oracle_rel_l2 = 0;
    std::string tolerance_basis;    // how the tolerance was derived
    double tol_rel_l2 = 0;          // relative L2 bound
    double tol_max_abs = 0;         // elementwise bound (per-channel outputs: the largest one)
    double kernel_err_over_tol = 0; // worst ratio of error to its bound (<= 1 passes)
    double oracle_err_over_tol = 0;
    bool kernel_pass = false, oracle_pass = false;
};

// Accumulates the error metrics of a stream of (value, reference) pairs.
struct ErrorAccumulator {
    double max_abs = 0, sq_err = 0, sq_ref = 0, max_ref = 0;
    void add(double y, double r) {  // inline: called once per element of a tensor
        const double e = std::fabs(y - r);
        if (!(e <= max_abs) && !std::isnan(max_abs)) max_abs = e;  // a NaN error stays
        sq_err += e * e;
        sq_ref += r * r;
        max_ref = std::max(max_ref, std::fabs(r));
    }
    // Adds another stream's sums (a NaN error stays NaN).
    void merge(const ErrorAccumulator& o);
    // The metrics, with max_rel_err as given (it needs max|ref| first, so a second pass).
    ErrorMetrics metrics(double max_rel_err) const;
};

// The largest relative error |y - r| / |r| among elements whose |r| reaches a floor that is only
// known later (1e-3 of the largest |ref| over a whole tensor whose parts are checked one at a
// time). Keeps the staircase of (|r|, error) pairs no other pair beats on both (largest |r|
// first, errors increasing), so max_above(floor) is exactly what one pass with the floor known
// would have found. Pairs whose |r| is below `lowest` (a floor the final one cannot be under)
// or whose error is NaN (which a running max ignores) are dropped.
class DeferredMaxRel {
public:
    explicit DeferredMaxRel(double lowest = 0) : lowest_(lowest), e0_(scale(lowest)) {}
    void add(double abs_ref, double rel_err) {  // inline: called once per element of a tensor
        if (!(abs_ref >= lowest_) || !(abs_ref > 0) || std::isnan(rel_err)) return;
        const int bin = std::min(std::max(scale(abs_ref) - e0_, 0), kBins - 1);
        if (rel_err <= beaten_[size_t(bin)]) return;  // a pair with |r| above this bin's has a larger error
        insert(abs_ref, rel_err, bin);
    }
    // The largest error among pairs with |r| >= floor (0 when there is none).
    double max_above(double floor) const {
        double m = 0;
        for (const Step& s : steps_)
            if (s.abs_ref >= floor) m = std::max(m, s.rel_err);
        return m;
    }
    size_t steps() const { return steps_.size(); }
    // The bins' bounds, for a caller that screens many pairs at once: add() rejects at once a pair
    // whose error is at most beaten[min(max(scale(|r|) - e0, 0), count - 1)], where scale(|r|)
    // is bits shift..62 of |r| (its biased binary exponent and the top mantissa bits). They
    // change as pairs are added.
    struct Bins {
        const double* beaten;
        int e0, count, shift;
    };
    Bins bins() const { return {beaten_.data(), e0_, kBins, kScaleShift}; }

private:
    struct Step {
        double abs_ref, rel_err;
    };
    // Pairs are binned by eighths of binades of |r| above `lowest`'s (16 binades); beaten_[j] is
    // the largest error among pairs in higher bins, so most pairs are rejected by one comparison
    // (only with pairs of higher bins: the narrower the bins, the more pairs that rejects).
    static constexpr int kBins = 128;
    static constexpr int kScaleShift = 49;
    static int scale(double x) {
        uint64_t u;
        std::memcpy(&u, &x, 8);
        return int((u >> kScaleShift) & 0x3fff);
    }
    void insert(double abs_ref, double rel_err, int bin);

    double lowest_;
    int e0_;
    std::array<double, kBins> beaten_{};
    std::vector<Step> steps_;  // |r| descending, errors ascending
};

// One row of two implementations' outputs against their references (yk against rk, yo against
// ro: the kernel and an oracle) and against each other: the same sums, maxima and staircases as
//   ek.add(yk[j], rk[j]); eo.add(yo[j], ro[j]); se_ko += (yk[j] - yo[j])^2; sq_o += yo[j]^2;
//   rel_k.add(|rk[j]|, |yk[j] - rk[j]| / |rk[j]|); rel_o.add(|ro[j]|, |yo[j] - ro[j]| / |ro[j]|)
// for j = 0..n-1 (every sum added in element order), without a division for the pairs the
// staircases reject at once (most of them).
void compare_row_pair(const float* yk, const float* yo, const double* rk, const double* ro, size_t n,
                      ErrorAccumulator& ek, ErrorAccumulator& eo, DeferredMaxRel& rel_k, DeferredMaxRel& rel_o,
                      double& se_ko, double& sq_o);

// All metrics of y against ref in one call (two passes over the data).
ErrorMetrics error_metrics(const std::vector<float>& y, const std::vector<double>& ref);
// ||a - b|| / ||b||.
double rel_l2(const std::vector<float>& a, const std::vector<float>& b);
// Sets kernel_pass/oracle_pass from the ratios (a NaN error fails).
void judge(OutputCheck& o);

}  // namespace bnsim::num
