#include "kernels/batch_norm_bwd/numerics/validate_report.h"

#include <sstream>

#include "numerics/comparison_report.h"

namespace bnsim::bn {
namespace {

using json = nlohmann::ordered_json;
using num::json_number;
using num::sci;

void describe_run(const Params& p, const ValidateRequest& req, KernelValidation& v) {
    const Shape& s = p.shape;
    json& j = v.header;
    j["shape"] = {{"B", s.B}, {"C", s.C}, {"D", s.D}, {"H", s.H}, {"W", s.W}};
    j["elements"] = s.elements();
    j["dtype"] = dtype_name(p.dtype);
    j["fuse_relu"] = p.fuse_relu;
    j["precision"] = {{"dyx_product", dtype_name(p.dyx_dtype)},
                      {"intermediates", dtype_name(p.compute_dtype)},
                      {"scale_bias_operand_bits", req.settings.scale_bias_operand_bits}};
    std::ostringstream t;
    t << " B=" << s.B << " C=" << s.C << " D=" << s.D << " H=" << s.H << " W=" << s.W << " " << dtype_name(p.dtype)
      << ", lnc " << req.target.num_cores << ", fuse_relu " << (p.fuse_relu ? "true" : "false");
    v.title = t.str();
    std::ostringstream h;
    h << "precision:  dy*x product " << dtype_name(p.dyx_dtype) << ", intermediates " << dtype_name(p.compute_dtype)
      << ", scale/bias operand " << req.settings.scale_bias_operand_bits << " significand bits\n";
    v.header_text = h.str();
}

void describe_mask(const Params& p, const MaskCheck& mc, KernelValidation& v) {
    v.details["relu_mask_flips"] = mc.flips;
    json m;
    m["mode"] = mc.mode;
    m["flips"] = mc.flips;
    m["max_abs_forward_among_flips"] = json_number(mc.max_abs_forward_flipped);
    m["flips_beyond_kink"] = mc.flips_outside_kink;
    m["relu_kink"] = p.relu_kink;
    m["oracle_flips"] = mc.oracle_flips;
    m["oracle_max_abs_forward_among_flips"] = json_number(mc.oracle_max_abs_forward_flipped);
    v.details["relu_mask"] = m;
    std::ostringstream o;
    o << "\nrelu mask:  " << mc.mode;
    if (mc.mode != "none") {
        o << ", " << mc.flips << " flipped elements vs the float64 forward output";
        if (mc.flips > 0)
            o << " (largest |forward output| among them " << sci(m["max_abs_forward_among_flips"]) << ", "
              << mc.flips_outside_kink << " beyond the kink band max(" << sci(m["relu_kink"])
              << ", what the scale/bias operand precision resolves))";
        if (mc.mode == "recomputed") o << "; float32 oracle: " << mc.oracle_flips << " flips";
    }
    v.details_text = o.str();
}

}  // namespace

void describe_validation(const Params& p, const ValidateRequest& req, const ValidateResult& r, KernelValidation& v) {
    describe_run(p, req, v);
    describe_mask(p, r.mask, v);
}

}  // namespace bnsim::bn
