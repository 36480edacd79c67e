#pragma once
// How an output of the emulated kernel (and of an independent oracle) is measured against a
// float64 reference: error metrics, the tolerance they are held to, and pass/fail.
#include <algorithm>
#include <cmath>
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

// All metrics of y against ref in one call (two passes over the data).
ErrorMetrics error_metrics(const std::vector<float>& y, const std::vector<double>& ref);
// ||a - b|| / ||b||.
double rel_l2(const std::vector<float>& a, const std::vector<float>& b);
// Sets kernel_pass/oracle_pass from the ratios (a NaN error fails).
void judge(OutputCheck& o);

}  // namespace bnsim::num
