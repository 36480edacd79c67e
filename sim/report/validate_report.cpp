#include "sim/config/run_config.h"
#include "sim/report/validate_report.h"

#include <cstdio>
#include <ostream>

#include "numerics/comparison_report.h"

namespace bnsim {

using json = nlohmann::ordered_json;

ValidateReport make_validate_report(const RunConfig& cfg, std::string order, uint64_t memory_bytes_estimate,
                                    KernelValidation v) {
    ValidateReport r;
    r.kernel = cfg.kernel;
    r.config = cfg.file;
    r.hardware = cfg.hw.name;
    r.lnc = cfg.lnc;
    r.order = std::move(order);
    r.memory_bytes_estimate = memory_bytes_estimate;
    r.validation = std::move(v);
    return r;
}

namespace {

// Up to this many hazards are listed by name.
constexpr size_t kListedHazards = 20;

void append(json& j, const json& section) {
    for (auto it = section.begin(); it != section.end(); ++it) j[it.key()] = it.value();
}

}  // namespace

json validate_report_json(const ValidateReport& r) {
    const num::ValidationResult& res = r.validation.result;
    json j;
    j["kernel"] = r.kernel;
    j["config"] = r.config;
    j["hardware"] = r.hardware;
    j["lnc"] = r.lnc;
    append(j, r.validation.header);
    j["inputs"] = r.validation.inputs;
    j["execution_order"] = r.order;
    j["instructions"] = res.instructions;
    json outs;
    for (const auto& o : res.outputs) outs[o.name] = num::output_check_json(o);
    j["outputs"] = outs;
    append(j, r.validation.details);
    j["hazards"] = res.hazards.size();
    json hl = json::array();
    for (size_t i = 0; i < res.hazards.size() && i < kListedHazards; ++i) hl.push_back(res.hazards[i].text);
    j["hazard_list"] = hl;
    j["dependency_edges_checked"] = res.dependency_edges_checked;
    j["memory_bytes_estimate"] = r.memory_bytes_estimate;
    j["memory_mode"] = r.memory_mode;
    j["pass"] = res.pass;
    return j;
}

namespace {

void print_output(const num::OutputCheck& x, std::ostream& o) {
    auto line = [&](const char* who, const num::ErrorMetrics& m, double err_over_tol, bool pass) {
        char b[200];
        std::snprintf(b, sizeof b, "  %-7s %-7s  %11s  %11s  %11s  %7s  %s\n",
                      who == std::string("kernel") ? x.name.c_str() : "", who,
                      num::sci(num::json_number(m.max_abs_err)).c_str(), num::sci(num::json_number(m.max_rel_err)).c_str(),
                      num::sci(num::json_number(m.rel_l2_err)).c_str(), num::fixed3(num::json_number(err_over_tol)).c_str(),
                      pass ? "ok" : "FAIL");
        o << b;
    };
    line("kernel", x.kernel, x.kernel_err_over_tol, x.kernel_pass);
    line("oracle", x.oracle, x.oracle_err_over_tol, x.oracle_pass);
    o << "          tolerance: rel_l2 " << num::sci(num::json_number(x.tol_rel_l2)) << ", max_abs "
      << num::sci(num::json_number(x.tol_max_abs)) << " (" << x.tolerance_basis << "); kernel vs oracle rel_l2 "
      << num::sci(num::json_number(x.kernel_vs_oracle_rel_l2)) << "\n";
}

}  // namespace

void print_validate_report(const ValidateReport& r, std::ostream& o) {
    const KernelValidation& v = r.validation;
    const num::ValidationResult& res = v.result;
    o << "bnsim validate: " << r.kernel << v.title << "\n";
    o << "inputs:     " << v.inputs << "\n";
    o << "execution:  " << res.instructions << " instructions, " << r.order << "\n";
    if (!r.memory.empty()) o << "memory:     " << r.memory << "\n";
    o << v.header_text;
    o << "\nerrors against the float64 reference (max_rel over |ref| >= 1e-3 max|ref|):\n";
    o << "  output  impl     max_abs_err  max_rel_err  rel_l2_err   err/tol  result\n";
    for (const auto& x : res.outputs) print_output(x, o);
    o << v.details_text;
    o << "\nhazards:    " << res.hazards.size() << " (" << res.dependency_edges_checked << " dependency edges checked)\n";
    for (size_t i = 0; i < res.hazards.size() && i < kListedHazards; ++i) o << "  " << res.hazards[i].text << "\n";
    if (res.hazards.size() > kListedHazards) o << "  ...\n";
    o << "\n" << (res.pass ? "PASS" : "FAIL") << "\n";
}

}  // namespace bnsim
