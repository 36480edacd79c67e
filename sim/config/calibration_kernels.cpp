#include "sim/config/calibration_kernels.h"

#include "kernels/calibration/calibration.h"

namespace bnsim {
namespace {

constexpr int64_t kMaxFree = int64_t(1) << 24;

uint32_t partitions(ConfigNode& s, const RunConfig& cfg) {
    return uint32_t(s.integer("partitions", 1, cfg.hw.sbuf.partitions));
}

DType dtype(ConfigNode& s) { return *dtype_from_name(s.choice("dtype", {"bfloat16", "float32"})); }

AluOp alu(ConfigNode& s, const std::vector<std::string>& allowed, const std::string& dflt) {
    const std::string a = s.choice("alu", allowed, dflt);
    for (AluOp op : {AluOp::add, AluOp::subtract, AluOp::mult, AluOp::max})
        if (a == alu_name(op)) return op;
    return AluOp::add;
}

}  // namespace

KernelBuilder parse_dma_copy(ConfigNode& top, RunConfig& cfg) {
    ConfigNode s = top.child("dma_copy");
    cal::DmaCopyParams p;
    p.partitions = partitions(s, cfg);
    p.free = uint64_t(s.integer("free", 1, kMaxFree));
    p.dtype = dtype(s);
    p.direction = s.choice("direction", {"hbm_to_sbuf", "sbuf_to_hbm"}, "hbm_to_sbuf") == "hbm_to_sbuf"
                      ? cal::Direction::hbm_to_sbuf
                      : cal::Direction::sbuf_to_hbm;
    p.count = uint32_t(s.integer("count", 1, 1 << 20, 1));
    p.dge = s.choice("dge", {"hardware", "software"}, "hardware") == "hardware" ? DgeMode::hardware
                                                                               : DgeMode::software;
    p.queue = uint16_t(s.integer("queue", 0, cfg.hw.dma.queues_per_engine - 1, 0));
    s.finish();
    return [p](const KernelTarget& t) { return cal::generate_dma_copy(p, t); };
}

KernelBuilder parse_activation(ConfigNode& top, RunConfig& cfg) {
    ConfigNode s = top.child("activation");
    cal::ActivationParams p;
    p.partitions = partitions(s, cfg);
    p.free = uint64_t(s.integer("free", 1, kMaxFree));
    p.dtype = dtype(s);
    p.func = *act_func_from_name(s.choice("func", {"copy", "exp", "sigmoid", "rsqrt", "relu"}, "exp"));
    p.reduce = s.boolean("reduce", false);
    if (s.has("readout") && !p.reduce) {
        s.boolean("readout");
        s.fail_at(s.node()["readout"], "readout", "only meaningful with reduce: true");
    }
    p.readout = s.boolean("readout", p.reduce);
    s.finish();
    return [p](const KernelTarget& t) { return cal::generate_activation(p, t); };
}

KernelBuilder parse_vector_op(ConfigNode& top, RunConfig& cfg) {
    ConfigNode s = top.child("vector_op");
    cal::VectorOpParams p;
    const std::string op = s.choice("op", {"tensor_copy", "tensor_tensor", "tensor_scalar", "tensor_reduce"});
    p.partitions = partitions(s, cfg);
    p.free = uint64_t(s.integer("free", 1, kMaxFree));
    p.dtype = dtype(s);
    if (op == "tensor_copy") {
        p.op = cal::VectorOp::tensor_copy;
        if (s.has("alu")) s.fail_at(s.node()["alu"], "alu", "tensor_copy takes no ALU operation");
        s.raw("alu");
    } else if (op == "tensor_reduce") {
        p.op = cal::VectorOp::tensor_reduce;
        p.alu = alu(s, {"add", "max"}, "add");
    } else {
        p.op = op == "tensor_tensor" ? cal::VectorOp::tensor_tensor : cal::VectorOp::tensor_scalar;
        p.alu = alu(s, {"add", "subtract", "mult", "max"}, "add");
    }
    s.finish();
    return [p](const KernelTarget& t) { return cal::generate_vector_op(p, t); };
}

KernelBuilder parse_vector_add(ConfigNode& top, RunConfig& cfg) {
    ConfigNode s = top.child("vector_add");
    cal::VectorAddParams p;
    p.n = uint64_t(s.integer("n", 1, int64_t(1) << 31));
    p.partitions = partitions(s, cfg);
    p.free = uint64_t(s.integer("free", 1, kMaxFree));
    p.dtype = dtype(s);
    p.op = *opcode_from_name(s.choice("op", {"tensor_tensor", "tensor_scalar"}, "tensor_tensor"));
    if (p.n % p.partitions)
        s.fail_at(s.node()["n"], "n", "must be a multiple of partitions (" + std::to_string(p.partitions) + "), got " +
                                          std::to_string(p.n));
    const uint64_t cols = p.n / p.partitions;
    if (cols % p.free)
        s.fail_at(s.node()["free"], "free", "must divide n/partitions = " + std::to_string(cols) + ", got " +
                                                std::to_string(p.free));
    s.finish();
    return [p](const KernelTarget& t) { return cal::generate_vector_add(p, t); };
}

}  // namespace bnsim
