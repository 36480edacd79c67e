// activation's registration: the `activation:` section of a run config, e.g.
// `activation: {partitions: 128, free: 1024, dtype: float32, func: exp, reduce: false}` or
// `activation: {op: tensor_copy, free: 512, dtype: float32, out_dtype: bfloat16}`; optional
// keys op (activation | tensor_copy), out_dtype (default dtype), src (sbuf | psum) and
// broadcasts (0-2 per-partition scale/bias columns).
#include "kernels/calibration/calibration.h"
#include "kernels/calibration/config_keys.h"

namespace bnsim::cal {
namespace {

std::any parse(ConfigNode& top, const KernelTarget& t) {
    ConfigNode s = top.child("activation");
    ActivationParams p;
    p.op = s.choice("op", {"activation", "tensor_copy"}, "activation") == "activation" ? Opcode::Activation
                                                                                      : Opcode::TensorCopy;
    p.partitions = partitions_key(s, t);
    p.free = uint64_t(s.integer("free", 1, kMaxFree));
    p.dtype = dtype_key(s);
    p.out_dtype = out_dtype_key(s, p.dtype);
    p.src = src_key(s);
    const bool copy = p.op == Opcode::TensorCopy;
    for (const char* key : {"func", "broadcasts", "reduce"})
        if (copy && s.has(key)) s.fail_at(s.node()[key], key, "tensor_copy takes no activation function, scale/bias or reduce");
    p.broadcasts = int(s.integer("broadcasts", 0, 2, 0));
    p.func = *act_func_from_name(s.choice("func", {"copy", "exp", "sigmoid", "rsqrt", "relu"}, "exp"));
    p.reduce = s.boolean("reduce", false);
    if (s.has("readout") && !p.reduce) {
        s.boolean("readout");
        s.fail_at(s.node()["readout"], "readout", "only meaningful with reduce: true");
    }
    p.readout = s.boolean("readout", p.reduce);
    s.finish();
    return p;
}

}  // namespace

const KernelEntry& activation_entry() {
    static const KernelEntry e = [] {
        KernelEntry k;
        k.name = "activation";
        k.description = "calibration: one activation on ACT over a loaded tile, optionally reducing";
        k.parse = parse;
        k.generate = [](const std::any& p, const KernelTarget& t) {
            return generate_activation(kernel_params<ActivationParams>(p), t);
        };
        k.summary_fields = calibration_summary_fields();
        return k;
    }();
    return e;
}

}  // namespace bnsim::cal
