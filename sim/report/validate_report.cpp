#include "sim/report/validate_report.h"

#include <cmath>
#include <cstdio>
#include <ostream>

namespace bnsim {

using json = nlohmann::ordered_json;

namespace {

json jnum(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    return v;
}

json metrics(const num::ErrorMetrics& m) {
    json j;
    j["max_abs_err"] = jnum(m.max_abs_err);
    j["max_rel_err"] = jnum(m.max_rel_err);
    j["rel_l2_err"] = jnum(m.rel_l2_err);
    j["max_abs_ref"] = jnum(m.max_abs_ref);
    return j;
}

json output(const num::OutputCheck& o) {
    json j = metrics(o.kernel);  // the emulated kernel's errors at the top level
    j["err_over_tol"] = jnum(o.kernel_err_over_tol);
    j["pass"] = o.kernel_pass;
    json orc = metrics(o.oracle);
    orc["err_over_tol"] = jnum(o.oracle_err_over_tol);
    orc["pass"] = o.oracle_pass;
    j["oracle"] = orc;
    j["kernel_vs_oracle_rel_l2"] = jnum(o.kernel_vs_oracle_rel_l2);
    j["tolerance"] = {{"rel_l2", jnum(o.tol_rel_l2)}, {"max_abs", jnum(o.tol_max_abs)}, {"basis", o.tolerance_basis}};
    return j;
}

std::string fmt(const char* f, double v) {
    char b[64];
    std::snprintf(b, sizeof b, f, v);
    return b;
}

std::string sci(const json& v) {
    if (v.is_string()) return v.get<std::string>();
    return fmt("%.3e", v.get<double>());
}

}  // namespace

json validate_report_json(const RunConfig& cfg, const num::ValidateResult& r, const ValidateContext& ctx) {
    json j;
    j["kernel"] = cfg.kernel;
    j["config"] = cfg.file;
    j["hardware"] = cfg.hw.name;
    j["lnc"] = cfg.lnc;
    if (std::any_cast<bn::Params>(&cfg.kernel_params)) {
        const auto& p = kernel_params<bn::Params>(cfg.kernel_params);
        j["shape"] = {{"B", p.shape.B}, {"C", p.shape.C}, {"D", p.shape.D}, {"H", p.shape.H}, {"W", p.shape.W}};
        j["elements"] = p.shape.elements();
        j["dtype"] = dtype_name(p.dtype);
        j["fuse_relu"] = p.fuse_relu;
        j["precision"] = {{"dyx_product", dtype_name(p.dyx_dtype)},
                          {"intermediates", dtype_name(p.compute_dtype)},
                          {"scale_bias_operand_bits", ctx.operand_bits}};
    }
    j["inputs"] = ctx.inputs;
    j["execution_order"] = ctx.order;
    j["instructions"] = r.instructions;
    json outs;
    outs["dx"] = output(r.dx);
    outs["dgamma"] = output(r.dgamma);
    outs["dbeta"] = output(r.dbeta);
    j["outputs"] = outs;
    j["relu_mask_flips"] = r.mask.flips;
    json m;
    m["mode"] = r.mask.mode;
    m["flips"] = r.mask.flips;
    m["max_abs_forward_among_flips"] = jnum(r.mask.max_abs_forward_flipped);
    m["flips_beyond_kink"] = r.mask.flips_outside_kink;
    m["relu_kink"] = cfg.numerics.relu_kink;
    m["oracle_flips"] = r.mask.oracle_flips;
    m["oracle_max_abs_forward_among_flips"] = jnum(r.mask.oracle_max_abs_forward_flipped);
    j["relu_mask"] = m;
    j["hazards"] = r.hazards.size();
    json hl = json::array();
    for (size_t i = 0; i < r.hazards.size() && i < 20; ++i) hl.push_back(r.hazards[i].text);
    j["hazard_list"] = hl;
    j["dependency_edges_checked"] = r.dependency_edges_checked;
    j["memory_bytes_estimate"] = ctx.memory_bytes_estimate;
    j["pass"] = r.pass;
    return j;
}

void print_validate_report(const json& j, std::ostream& o) {
    o << "bnsim validate: " << j["kernel"].get<std::string>();
    if (j.contains("shape")) {
        const json& s = j["shape"];
        o << " B=" << s["B"] << " C=" << s["C"] << " D=" << s["D"] << " H=" << s["H"] << " W=" << s["W"] << " "
          << j["dtype"].get<std::string>() << ", lnc " << j["lnc"] << ", fuse_relu " << (j["fuse_relu"].get<bool>() ? "true" : "false");
    }
    o << "\n";
    o << "inputs:     " << j["inputs"].get<std::string>() << "\n";
    o << "execution:  " << j["instructions"] << " instructions, " << j["execution_order"].get<std::string>() << "\n";
    if (j.contains("precision")) {
        const json& p = j["precision"];
        o << "precision:  dy*x product " << p["dyx_product"].get<std::string>() << ", intermediates "
          << p["intermediates"].get<std::string>() << ", scale/bias operand " << p["scale_bias_operand_bits"]
          << " significand bits\n";
    }
    o << "\nerrors against the float64 reference (max_rel over |ref| >= 1e-3 max|ref|):\n";
    o << "  output  impl     max_abs_err  max_rel_err  rel_l2_err   err/tol  result\n";
    for (const char* name : {"dx", "dgamma", "dbeta"}) {
        const json& x = j["outputs"][name];
        auto line = [&](const char* who, const json& m) {
            char b[200];
            std::snprintf(b, sizeof b, "  %-7s %-7s  %11s  %11s  %11s  %7s  %s\n", who == std::string("kernel") ? name : "",
                          who, sci(m["max_abs_err"]).c_str(), sci(m["max_rel_err"]).c_str(), sci(m["rel_l2_err"]).c_str(),
                          m["err_over_tol"].is_string() ? m["err_over_tol"].get<std::string>().c_str()
                                                         : fmt("%.3f", m["err_over_tol"].get<double>()).c_str(),
                          m["pass"].get<bool>() ? "ok" : "FAIL");
            o << b;
        };
        line("kernel", x);
        line("oracle", x["oracle"]);
        o << "          tolerance: rel_l2 " << sci(x["tolerance"]["rel_l2"]) << ", max_abs " << sci(x["tolerance"]["max_abs"])
          << " (" << x["tolerance"]["basis"].get<std::string>() << "); kernel vs oracle rel_l2 "
          << sci(x["kernel_vs_oracle_rel_l2"]) << "\n";
    }
    const json& m = j["relu_mask"];
    o << "\nrelu mask:  " << m["mode"].get<std::string>();
    if (m["mode"] != "none") {
        o << ", " << m["flips"] << " flipped elements vs the float64 forward output";
        if (m["flips"].get<int64_t>() > 0)
            o << " (largest |forward output| among them " << sci(m["max_abs_forward_among_flips"]) << ", "
              << m["flips_beyond_kink"] << " beyond the kink band max(" << sci(m["relu_kink"]) << ", what the scale/bias operand precision resolves))";
        if (m["mode"] == "recomputed") o << "; float32 oracle: " << m["oracle_flips"] << " flips";
    }
    o << "\nhazards:    " << j["hazards"] << " (" << j["dependency_edges_checked"] << " dependency edges checked)\n";
    for (const auto& h : j["hazard_list"]) o << "  " << h.get<std::string>() << "\n";
    if (j["hazards"].get<size_t>() > j["hazard_list"].size()) o << "  ...\n";
    o << "\n" << (j["pass"].get<bool>() ? "PASS" : "FAIL") << "\n";
}

}  // namespace bnsim
