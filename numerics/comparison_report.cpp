#include "numerics/comparison_report.h"

#include <cmath>
#include <cstdio>

namespace bnsim::num {

using json = nlohmann::ordered_json;

namespace {

std::string fmt(const char* f, double v) {
    char b[64];
    std::snprintf(b, sizeof b, f, v);
    return b;
}

json metrics(const ErrorMetrics& m) {
    json j;
    j["max_abs_err"] = json_number(m.max_abs_err);
    j["max_rel_err"] = json_number(m.max_rel_err);
    j["rel_l2_err"] = json_number(m.rel_l2_err);
    j["max_abs_ref"] = json_number(m.max_abs_ref);
    return j;
}

}  // namespace

json json_number(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    return v;
}

std::string sci(const json& v) {
    if (v.is_string()) return v.get<std::string>();
    return fmt("%.3e", v.get<double>());
}

std::string fixed3(const json& v) {
    if (v.is_string()) return v.get<std::string>();
    return fmt("%.3f", v.get<double>());
}

json output_check_json(const OutputCheck& o) {
    json j = metrics(o.kernel);  // the emulated kernel's errors at the top level
    j["err_over_tol"] = json_number(o.kernel_err_over_tol);
    j["pass"] = o.kernel_pass;
    json orc = metrics(o.oracle);
    orc["err_over_tol"] = json_number(o.oracle_err_over_tol);
    orc["pass"] = o.oracle_pass;
    j["oracle"] = orc;
    j["kernel_vs_oracle_rel_l2"] = json_number(o.kernel_vs_oracle_rel_l2);
    j["tolerance"] = {{"rel_l2", json_number(o.tol_rel_l2)},
                      {"max_abs", json_number(o.tol_max_abs)},
                      {"basis", o.tolerance_basis}};
    return j;
}

}  // namespace bnsim::num
