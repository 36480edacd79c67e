// activation: one ACT instruction over a [partitions, free] tile (M2, M8): an activation,
// optionally reading per-partition scale/bias columns, accumulating into the reduce registers
// and reading them out (M2's ACTIVATION_READ_ACCUMULATOR), or ACT's tensor_copy.
#include "kernels/calibration/builder.h"
#include "kernels/calibration/calibration.h"

namespace bnsim::cal {

GeneratedKernel generate_activation(const ActivationParams& p, const KernelTarget& t) {
    Builder b("activation", t, p.partitions);
    const bool copy = p.op == Opcode::TensorCopy;
    if (p.free < 1) fail("activation", "free", "must be at least 1");
    if (p.readout && !p.reduce) fail("activation", "readout", "needs reduce: true (there is nothing to read out)");
    if (copy && (p.reduce || p.broadcasts > 0))
        fail("activation", "op", "tensor_copy reads no scale/bias operands and does not reduce");
    if (p.broadcasts < 0 || p.broadcasts > 2) fail("activation", "broadcasts", "must be 0, 1 or 2");
    const bool in_psum = p.src == Space::Psum;
    const uint64_t data = in_psum ? 0 : b.sbuf_alloc(p.free * uint64_t(dtype_size(p.dtype)), "the input tile");
    const uint64_t out = b.sbuf_alloc(p.free * uint64_t(dtype_size(p.out_dtype)), "the output tile");
    uint64_t column[2] = {0, 0};
    for (int i = 0; i < p.broadcasts; ++i) column[i] = b.sbuf_alloc(4, i == 0 ? "the scale column" : "the bias column");
    const uint64_t acc = p.readout ? b.sbuf_alloc(4, "the read-out column") : 0;
    const uint32_t t_in = in_psum ? 0 : b.hbm_tensor("in", p.dtype, p.partitions, p.free, true);
    uint32_t t_col[2] = {0, 0};
    for (int i = 0; i < p.broadcasts; ++i)
        t_col[i] = b.hbm_tensor(i == 0 ? "scale" : "bias", DType::fp32, p.partitions, 1, true);
    const uint32_t t_out = b.hbm_tensor("out", p.out_dtype, p.partitions, p.free, false);
    const uint32_t t_acc = p.readout ? b.hbm_tensor("reduced", DType::fp32, p.partitions, 1, false) : 0;

    const Operand data_t = in_psum ? Builder::psum(0, p.partitions, p.free, p.dtype)
                                   : Builder::sbuf(0, p.partitions, data, p.free, p.dtype);
    const Operand out_t = Builder::sbuf(0, p.partitions, out, p.free, p.out_dtype);
    if (!in_psum) b.dma(b.hbm(t_in, 0, p.partitions, 0, p.free), data_t, DgeMode::hardware, kQueueIn0, "load in");
    Operand col_t[2];
    for (int i = 0; i < p.broadcasts; ++i) {
        col_t[i] = Builder::sbuf(0, p.partitions, column[i], 1, DType::fp32);
        b.dma(b.hbm(t_col[i], 0, p.partitions, 0, 1), col_t[i], DgeMode::hardware, kQueueIn1,
              i == 0 ? "load scale" : "load bias");
    }

    Instruction in;
    in.engine = Engine::Act;
    in.opcode = p.op;
    in.srcs = {data_t};
    in.dsts = {out_t};
    if (!copy) {
        in.act_func = p.func;
        in.scalar[0].imm = 1.0f;  // scale
        in.scalar[1].imm = 0.0f;  // bias
        // (bounded by the array too: GCC 12 cannot see the check above and warns of an overflow)
        for (int i = 0; i < p.broadcasts && i < 2; ++i) in.scalar[i].column = col_t[i];
    }
    if (p.reduce) in.accumulate = Accumulate::reset_accumulate;
    if (p.readout) {
        in.acc_readout = true;
        in.dsts.push_back(Builder::sbuf(0, p.partitions, acc, 1, DType::fp32));
    }
    const uint32_t id = b.append(std::move(in), out_t, copy ? "measured tensor_copy" : "measured activation");
    b.measured(id);

    b.dma(out_t, b.hbm(t_out, 0, p.partitions, 0, p.free), DgeMode::hardware, kQueueOut, "store out");
    if (p.readout)
        b.dma(Builder::sbuf(0, p.partitions, acc, 1, DType::fp32), b.hbm(t_acc, 0, p.partitions, 0, 1),
              DgeMode::hardware, kQueueOut1, "store read-out");

    auto& c = b.info()["calibration"];
    c["kernel"] = "activation";
    c["op"] = opcode_name(p.op);
    c["tile"] = {p.partitions, p.free};
    c["dtype"] = dtype_name(p.dtype);
    c["out_dtype"] = dtype_name(p.out_dtype);
    c["src"] = space_name(p.src);
    c["broadcasts"] = p.broadcasts;
    if (!copy) c["func"] = act_func_name(p.func);
    c["reduce"] = p.reduce;
    c["readout"] = p.readout;
    return b.finish();
}

}  // namespace bnsim::cal
