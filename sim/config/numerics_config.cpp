#include "sim/config/numerics_config.h"

#include "kernels/batch_norm_bwd/batch_norm_bwd.h"
#include "sim/config/run_config.h"

namespace bnsim {
namespace {

num::Distribution parse_dist(ConfigNode& parent, const std::string& key, num::Distribution d) {
    auto n = parent.optional_child(key);
    if (!n) return d;
    d.kind = n->choice("distribution", {"normal", "uniform"}, d.kind == num::Distribution::normal ? "normal" : "uniform") ==
                     "normal"
                 ? num::Distribution::normal
                 : num::Distribution::uniform;
    d.mean = n->real("mean", -1e30, 1e30, d.mean);
    d.spread = n->real("spread", 0.0, 1e30, d.spread);
    n->finish();
    return d;
}

void parse_range(ConfigNode& parent, const std::string& key, double& lo, double& hi) {
    auto n = parent.optional_child(key);
    if (!n) return;
    lo = n->real("min", -1e30, 1e30, lo);
    hi = n->real("max", -1e30, 1e30, hi);
    if (hi < lo) n->fail_at(n->node()["max"], "max", "must be >= min (" + std::to_string(lo) + ")");
    n->finish();
}

}  // namespace

NumericsConfig parse_numerics_config(ConfigNode& top) {
    NumericsConfig c;
    auto n = top.optional_child("numerics");
    if (!n) return c;
    c.present = true;
    c.inputs.seed = uint64_t(n->integer("seed", 0, int64_t(1) << 62, 1));
    c.inputs.x_in = parse_dist(*n, "x_in", c.inputs.x_in);
    c.inputs.dy = parse_dist(*n, "dy", c.inputs.dy);
    parse_range(*n, "gamma", c.inputs.gamma_lo, c.inputs.gamma_hi);
    parse_range(*n, "beta", c.inputs.beta_lo, c.inputs.beta_hi);
    if (auto pr = n->optional_child("precision")) {
        c.dyx_dtype = *dtype_from_name(pr->choice("dyx_product", {"float32", "bfloat16"}, "float32"));
        c.intermediates_dtype = *dtype_from_name(pr->choice("intermediates", {"bfloat16", "float32"}, "bfloat16"));
        YAML::Node b = pr->node()["scale_bias_operand_bits"];
        if (b.IsDefined() && !b.IsNull() && !(b.IsScalar() && b.Scalar() == "hardware"))
            c.scale_bias_operand_bits = int(pr->integer("scale_bias_operand_bits", 1, 24));
        else
            pr->raw("scale_bias_operand_bits");
        pr->finish();
    }
    if (auto t = n->optional_child("tolerances")) {
        c.tolerance_scale = t->real("scale", 1e-6, 1e12, 1.0);
        c.relu_kink = t->real("relu_kink", 0.0, 1e30, 1e-5);
        t->finish();
    }
    YAML::Node m = n->node()["memory_limit_bytes"];
    if (m.IsDefined() && !m.IsNull() && !(m.IsScalar() && m.Scalar() == "auto"))
        c.memory_limit_bytes = uint64_t(n->integer("memory_limit_bytes", 1, int64_t(1) << 62));
    else
        n->raw("memory_limit_bytes");
    n->finish();
    return c;
}

void apply_numerics_to_kernel(RunConfig& cfg) {
    auto* p = std::any_cast<bn::Params>(&cfg.kernel_params);
    if (!p) return;
    p->dyx_dtype = cfg.numerics.dyx_dtype;
    p->compute_dtype = cfg.numerics.intermediates_dtype;
}

}  // namespace bnsim
