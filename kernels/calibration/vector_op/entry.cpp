// vector_op's registration: the `vector_op:` section of a run config, e.g.
// `vector_op: {op: tensor_tensor, partitions: 128, free: 1024, dtype: float32, alu: add}`;
// optional keys out_dtype (default dtype) and src (sbuf | psum).
#include "kernels/calibration/calibration.h"
#include "kernels/calibration/config_keys.h"

namespace bnsim::cal {
namespace {

std::any parse(ConfigNode& top, const KernelTarget& t) {
    ConfigNode s = top.child("vector_op");
    VectorOpParams p;
    const std::string op = s.choice("op", {"tensor_copy", "tensor_tensor", "tensor_scalar", "tensor_reduce"});
    p.partitions = partitions_key(s, t);
    p.free = uint64_t(s.integer("free", 1, kMaxFree));
    p.dtype = dtype_key(s);
    p.out_dtype = out_dtype_key(s, p.dtype);
    p.src = src_key(s);
    if (op == "tensor_copy") {
        p.op = VectorOp::tensor_copy;
        if (s.has("alu")) s.fail_at(s.node()["alu"], "alu", "tensor_copy takes no ALU operation");
        s.raw("alu");
    } else if (op == "tensor_reduce") {
        p.op = VectorOp::tensor_reduce;
        p.alu = alu_key(s, {"add", "max"}, "add");
    } else {
        p.op = op == "tensor_tensor" ? VectorOp::tensor_tensor : VectorOp::tensor_scalar;
        p.alu = alu_key(s, {"add", "subtract", "mult", "max"}, "add");
    }
    s.finish();
    return p;
}

}  // namespace

const KernelEntry& vector_op_entry() {
    static const KernelEntry e = [] {
        KernelEntry k;
        k.name = "vector_op";
        k.description = "calibration: one Vector-engine instruction over loaded tiles";
        k.parse = parse;
        k.generate = [](const std::any& p, const KernelTarget& t) {
            return generate_vector_op(kernel_params<VectorOpParams>(p), t);
        };
        k.summary_fields = calibration_summary_fields();
        return k;
    }();
    return e;
}

}  // namespace bnsim::cal
