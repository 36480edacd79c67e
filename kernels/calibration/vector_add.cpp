// vector_add: M4's tile loop (a third-party course kernel measured with neuron-bench).
//
//   for i in tiles of [partitions, free]:        # one SBUF tile per tensor, allocated in the loop
//       a_t = dma(a[:, i]); b_t = dma(b[:, i])
//       c_t = a_t + b_t                           # tensor_tensor (or the tensor_scalar form)
//       dma(c[:, i]) = c_t
//
// The tiles live at the same SBUF addresses every iteration, so iteration i+1's loads wait for
// iteration i's add (write-after-read) and its add waits for iteration i's store: the
// dependency pass derives that from the region overlaps.
#include "kernels/calibration/builder.h"
#include "kernels/calibration/calibration.h"

namespace bnsim::cal {

GeneratedKernel generate_vector_add(const VectorAddParams& p, const KernelTarget& t) {
    Builder b("vector_add", t, p.partitions);
    if (p.n < 1) fail("vector_add", "n", "must be at least 1");
    if (p.n % p.partitions)
        fail("vector_add", "n", "must be a multiple of partitions (" + std::to_string(p.partitions) + ") to view the vectors as [" +
                                    std::to_string(p.partitions) + ", n/" + std::to_string(p.partitions) + "], got " +
                                    std::to_string(p.n));
    const uint64_t cols = p.n / p.partitions;
    if (p.free < 1 || cols % p.free)
        fail("vector_add", "free", "must divide n/partitions = " + std::to_string(cols) + ", got " + std::to_string(p.free));
    if (p.op != Opcode::TensorTensor && p.op != Opcode::TensorScalar)
        fail("vector_add", "op", "must be tensor_tensor or tensor_scalar");
    const uint64_t iters = cols / p.free;
    const uint64_t bytes = p.free * uint64_t(dtype_size(p.dtype));
    const uint32_t P = p.partitions;

    const uint32_t t_a = b.hbm_tensor("a", p.dtype, P, cols, true);
    const uint32_t t_b = b.hbm_tensor("b", p.dtype, P, cols, true);
    const uint32_t t_c = b.hbm_tensor("c", p.dtype, P, cols, false);
    // Allocated inside the loop: the allocator hands out the same addresses every iteration.
    const uint64_t a_addr = b.sbuf_alloc(bytes, "the a tile");
    const uint64_t b_addr = b.sbuf_alloc(bytes, "the b tile");
    const uint64_t c_addr = b.sbuf_alloc(bytes, "the result tile");
    const Operand a_t = Builder::sbuf(0, P, a_addr, p.free, p.dtype);
    const Operand b_t = Builder::sbuf(0, P, b_addr, p.free, p.dtype);
    const Operand c_t = Builder::sbuf(0, P, c_addr, p.free, p.dtype);

    for (uint64_t i = 0; i < iters; ++i) {
        const uint64_t c0 = i * p.free, c1 = c0 + p.free;
        b.set_unit(int32_t(i));
        b.dma(b.hbm(t_a, 0, P, c0, c1), a_t, DgeMode::hardware, kQueueIn0, "load a");
        b.dma(b.hbm(t_b, 0, P, c0, c1), b_t, DgeMode::hardware, kQueueIn1, "load b");
        Instruction add;
        add.engine = Engine::Dve;
        add.opcode = p.op;
        add.alu[0] = AluOp::add;
        add.dsts = {c_t};
        if (p.op == Opcode::TensorTensor) {
            add.srcs = {a_t, b_t};
        } else {
            add.srcs = {a_t};
            add.scalar[0].column = Builder::sbuf(0, P, b_addr, 1, p.dtype);
        }
        b.append(std::move(add), c_t, "add");
        b.dma(c_t, b.hbm(t_c, 0, P, c0, c1), DgeMode::hardware, kQueueOut, "store c");
    }
    auto& c = b.info()["calibration"];
    c["kernel"] = "vector_add";
    c["op"] = opcode_name(p.op);
    c["view"] = {P, cols};
    c["tile"] = {P, p.free};
    c["dtype"] = dtype_name(p.dtype);
    c["iterations"] = iters;
    return b.finish();
}

}  // namespace bnsim::cal
