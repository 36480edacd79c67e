// vector_add's registration: the `vector_add:` section of a run config, e.g.
// `vector_add: {n: 25600, partitions: 128, free: 2, dtype: float32, op: tensor_tensor, dge: hardware, buffers: 4}`.
#include "kernels/calibration/calibration.h"
#include "kernels/compiler_estimates.h"
#include "kernels/calibration/config_keys.h"
#include "kernels/calibration/vector_add/numerics.h"

namespace bnsim::cal {
namespace {

std::any parse(ConfigNode& top, const KernelTarget& t) {
    ConfigNode s = top.child("vector_add");
    VectorAddParams p;
    p.n = uint64_t(s.integer("n", 1, int64_t(1) << 31));
    p.partitions = partitions_key(s, t);
    p.free = uint64_t(s.integer("free", 1, kMaxFree));
    p.dtype = dtype_key(s);
    p.op = *opcode_from_name(s.choice("op", {"tensor_tensor", "tensor_scalar"}, "tensor_tensor"));
    p.dge = *dge_from_name(s.choice("dge", {"none", "hardware", "software"}, "hardware"));
    p.buffers = uint32_t(s.integer("buffers", 1, 8, 4));
    if (p.n % p.partitions)
        s.fail_at(s.node()["n"], "n", "must be a multiple of partitions (" + std::to_string(p.partitions) + "), got " +
                                          std::to_string(p.n));
    const uint64_t cols = p.n / p.partitions;
    if (cols % p.free)
        s.fail_at(s.node()["free"], "free", "must divide n/partitions = " + std::to_string(cols) + ", got " +
                                                std::to_string(p.free));
    s.finish();
    return p;
}

}  // namespace

const KernelEntry& vector_add_entry() {
    static const KernelEntry e = [] {
        KernelEntry k;
        k.name = "vector_add";
        k.description = "calibration: M4's vector add, a loop of load a, load b, add, store c tiles";
        k.parse = parse;
        k.generate = [](const std::any& a, const KernelTarget& t) {
            const VectorAddParams& p = kernel_params<VectorAddParams>(a);
            GeneratedKernel g = generate_vector_add(p, t);
            // Its tiles rotate as an affine_range body's do: the same compiler estimate.
            g.estimates.push_back(loop_buffers_estimate("vector_add.buffers", int(p.buffers)));
            return g;
        };
        k.summary_fields = calibration_summary_fields();
        k.numerics = &vector_add_numerics();
        return k;
    }();
    return e;
}

}  // namespace bnsim::cal
