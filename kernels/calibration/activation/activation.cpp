// activation: one ACT instruction over a [partitions, free] tile (M2), optionally accumulating
// into the reduce registers and reading them out (M2's ACTIVATION_READ_ACCUMULATOR).
#include "kernels/calibration/builder.h"
#include "kernels/calibration/calibration.h"

namespace bnsim::cal {

GeneratedKernel generate_activation(const ActivationParams& p, const KernelTarget& t) {
    Builder b("activation", t, p.partitions);
    if (p.free < 1) fail("activation", "free", "must be at least 1");
    if (p.readout && !p.reduce) fail("activation", "readout", "needs reduce: true (there is nothing to read out)");
    const uint64_t bytes = p.free * uint64_t(dtype_size(p.dtype));
    const uint64_t data = b.sbuf_alloc(bytes, "the input tile");
    const uint64_t out = b.sbuf_alloc(bytes, "the output tile");
    const uint64_t acc = p.readout ? b.sbuf_alloc(4, "the read-out column") : 0;
    const uint32_t t_in = b.hbm_tensor("in", p.dtype, p.partitions, p.free, true);
    const uint32_t t_out = b.hbm_tensor("out", p.dtype, p.partitions, p.free, false);
    const uint32_t t_acc = p.readout ? b.hbm_tensor("reduced", DType::fp32, p.partitions, 1, false) : 0;

    const Operand data_t = Builder::sbuf(0, p.partitions, data, p.free, p.dtype);
    const Operand out_t = Builder::sbuf(0, p.partitions, out, p.free, p.dtype);
    b.dma(b.hbm(t_in, 0, p.partitions, 0, p.free), data_t, DgeMode::hardware, kQueueIn0, "load in");

    Instruction in;
    in.engine = Engine::Act;
    in.opcode = Opcode::Activation;
    in.act_func = p.func;
    in.srcs = {data_t};
    in.dsts = {out_t};
    in.scalar[0].imm = 1.0f;  // scale
    in.scalar[1].imm = 0.0f;  // bias
    if (p.reduce) in.accumulate = Accumulate::reset_accumulate;
    if (p.readout) {
        in.acc_readout = true;
        in.dsts.push_back(Builder::sbuf(0, p.partitions, acc, 1, DType::fp32));
    }
    const uint32_t id = b.append(std::move(in), out_t, "measured activation");
    b.measured(id);

    b.dma(out_t, b.hbm(t_out, 0, p.partitions, 0, p.free), DgeMode::hardware, kQueueOut, "store out");
    if (p.readout)
        b.dma(Builder::sbuf(0, p.partitions, acc, 1, DType::fp32), b.hbm(t_acc, 0, p.partitions, 0, 1),
              DgeMode::hardware, kQueueOut1, "store read-out");

    auto& c = b.info()["calibration"];
    c["kernel"] = "activation";
    c["tile"] = {p.partitions, p.free};
    c["dtype"] = dtype_name(p.dtype);
    c["func"] = act_func_name(p.func);
    c["reduce"] = p.reduce;
    c["readout"] = p.readout;
    return b.finish();
}

}  // namespace bnsim::cal
