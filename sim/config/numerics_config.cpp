#include "sim/config/numerics_config.h"

#include "kernels/kernel_numerics.h"

namespace bnsim {

NumericsConfig parse_numerics_config(ConfigNode& top, const KernelEntry& kernel, std::any& kernel_params) {
    NumericsConfig c;
    auto n = top.optional_child("numerics");
    auto pr = n ? n->optional_child("precision") : std::nullopt;
    auto tol = n ? n->optional_child("tolerances") : std::nullopt;
    if (kernel.numerics)
        kernel.numerics->parse(n ? &*n : nullptr, pr ? &*pr : nullptr, tol ? &*tol : nullptr, kernel_params);
    if (!n) return c;
    c.present = true;
    if (pr) {
        YAML::Node b = pr->node()["scale_bias_operand_bits"];
        if (b.IsDefined() && !b.IsNull() && !(b.IsScalar() && b.Scalar() == "hardware"))
            c.scale_bias_operand_bits = int(pr->integer("scale_bias_operand_bits", 1, 24));
        else
            pr->raw("scale_bias_operand_bits");
        pr->finish();
    }
    if (tol) {
        c.tolerance_scale = tol->real("scale", 1e-6, 1e12, 1.0);
        tol->finish();
    }
    YAML::Node m = n->node()["memory_limit_bytes"];
    if (m.IsDefined() && !m.IsNull() && !(m.IsScalar() && m.Scalar() == "auto"))
        c.memory_limit_bytes = uint64_t(n->integer("memory_limit_bytes", 1, int64_t(1) << 62));
    else
        n->raw("memory_limit_bytes");
    const std::string st = n->choice("streaming", {"auto", "always", "never"}, "auto");
    c.streaming = st == "always" ? NumericsConfig::Streaming::always
                : st == "never"  ? NumericsConfig::Streaming::never
                                 : NumericsConfig::Streaming::automatic;
    n->finish();
    return c;
}

}  // namespace bnsim
