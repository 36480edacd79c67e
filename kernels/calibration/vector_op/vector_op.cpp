// vector_op: one Vector-engine instruction over [partitions, free] tiles (M3, M8).
#include "kernels/calibration/builder.h"
#include "kernels/calibration/calibration.h"

namespace bnsim::cal {

GeneratedKernel generate_vector_op(const VectorOpParams& p, const KernelTarget& t) {
    Builder b("vector_op", t, p.partitions);
    if (p.free < 1) fail("vector_op", "free", "must be at least 1");
    const uint64_t bytes = p.free * uint64_t(dtype_size(p.dtype));
    const bool two_inputs = p.op == VectorOp::tensor_tensor;
    const bool reduce = p.op == VectorOp::tensor_reduce;
    const bool in_psum = p.src == Space::Psum;
    if (in_psum && two_inputs) fail("vector_op", "src", "psum takes one input tile (tensor_copy, tensor_scalar, tensor_reduce)");
    const uint64_t out_elems = reduce ? 1 : p.free;

    const uint64_t in0 = in_psum ? 0 : b.sbuf_alloc(bytes, "the first input tile");
    const uint64_t in1 = two_inputs ? b.sbuf_alloc(bytes, "the second input tile") : 0;
    const uint64_t out = b.sbuf_alloc(out_elems * uint64_t(dtype_size(p.out_dtype)), "the output tile");
    const uint32_t t_in0 = in_psum ? 0 : b.hbm_tensor("in0", p.dtype, p.partitions, p.free, true);
    const uint32_t t_in1 = two_inputs ? b.hbm_tensor("in1", p.dtype, p.partitions, p.free, true) : 0;
    const uint32_t t_out = b.hbm_tensor("out", p.out_dtype, p.partitions, out_elems, false);

    const Operand in0_t = in_psum ? Builder::psum(0, p.partitions, p.free, p.dtype)
                                  : Builder::sbuf(0, p.partitions, in0, p.free, p.dtype);
    const Operand in1_t = Builder::sbuf(0, p.partitions, in1, p.free, p.dtype);
    const Operand out_t = Builder::sbuf(0, p.partitions, out, out_elems, p.out_dtype);
    if (!in_psum)
        b.dma(b.hbm(t_in0, 0, p.partitions, 0, p.free), in0_t, DgeMode::hardware, kQueueIn0, "load in0");
    if (two_inputs) b.dma(b.hbm(t_in1, 0, p.partitions, 0, p.free), in1_t, DgeMode::hardware, kQueueIn1, "load in1");

    Instruction in;
    in.engine = Engine::Dve;
    in.srcs = {in0_t};
    in.dsts = {out_t};
    switch (p.op) {
    case VectorOp::tensor_copy: in.opcode = Opcode::TensorCopy; break;
    case VectorOp::tensor_tensor:
        in.opcode = Opcode::TensorTensor;
        in.srcs.push_back(in1_t);
        in.alu[0] = p.alu;
        break;
    case VectorOp::tensor_scalar:
        in.opcode = Opcode::TensorScalar;
        in.alu[0] = p.alu;  // in alu[0] 1.0
        in.scalar[0].imm = 1.0f;
        break;
    case VectorOp::tensor_reduce:
        in.opcode = Opcode::TensorReduce;
        in.alu[0] = p.alu;  // over the free axis
        break;
    }
    // The instruction's shape is its input's: a reduce streams `free` elements per partition.
    const uint32_t id = b.append(std::move(in), in0_t, "measured vector op");
    b.measured(id);
    b.dma(out_t, b.hbm(t_out, 0, p.partitions, 0, out_elems), DgeMode::hardware, kQueueOut, "store out");

    auto& c = b.info()["calibration"];
    c["kernel"] = "vector_op";
    c["op"] = vector_op_name(p.op);
    c["alu"] = p.op == VectorOp::tensor_copy ? "bypass" : alu_name(p.alu);
    c["tile"] = {p.partitions, p.free};
    c["dtype"] = dtype_name(p.dtype);
    c["out_dtype"] = dtype_name(p.out_dtype);
    c["src"] = space_name(p.src);
    return b.finish();
}

}  // namespace bnsim::cal
