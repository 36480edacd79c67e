// vector_add: M4's tile loop (a third-party course kernel measured with neuron-bench).
//
//   for i in tiles of [partitions, free]:        # one SBUF tile per tensor, allocated in the loop
//       a_t = dma(a[:, i]); b_t = dma(b[:, i])
//       c_t = a_t + b_t                           # tensor_tensor (or the tensor_scalar form)
//       dma(c[:, i]) = c_t
//
// Tiles allocated in the loop rotate over `buffers` places (iteration i takes buffer i mod
// buffers), each buffer's transfers on their own DMA queues: the NKI frontend's rule for an
// affine_range body (nki.loop_buffers, a compiler estimate; docs/nki-frontend.md), so the
// two traces of the kernel stay the same. Iteration i + buffers's loads wait for iteration i's
// add (write-after-read) and its add for iteration i's store: the dependency pass derives that
// from the region overlaps.
//
// DGE mode (`dge:`, default hardware): neuronx-cc generates descriptors in the hardware DGE by
// default on trn2 (since 2.19), and M4 was a benchmark run of the default compile. With the DGE
// block bound to the Sync engine that triggers every DMA (dma.dge_bound_to_issuer), the issues
// serialize at dma.issue_ns each: M4.free2 191 us against 186 measured. `dge: none` is what a
// profile run (--disable-dge) does.
#include <algorithm>

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
    if (p.buffers < 1) fail("vector_add", "buffers", "must be at least 1");
    // Allocated inside the loop: each tile's buffers side by side, as the frontend's allocator
    // places them (a site's buffers in one block, the sites in program order).
    const uint32_t nbuf = p.buffers;
    const uint64_t stride = b.aligned(bytes);  // one buffer
    const uint64_t a_addr = b.sbuf_alloc(stride * nbuf, "the a tile's buffers");
    const uint64_t b_addr = b.sbuf_alloc(stride * nbuf, "the b tile's buffers");
    const uint64_t c_addr = b.sbuf_alloc(stride * nbuf, "the result tile's buffers");
    const int queues = std::max(1, t.dma_queues);

    b.trace().reserve(4 * iters);  // refused up front if past the trace limit
    for (uint64_t i = 0; i < iters; ++i) {
        const uint64_t c0 = i * p.free, c1 = c0 + p.free;
        const uint32_t k = uint32_t(i % nbuf);
        const Operand a_t = Builder::sbuf(0, P, a_addr + k * stride, p.free, p.dtype);
        const Operand b_t = Builder::sbuf(0, P, b_addr + k * stride, p.free, p.dtype);
        const Operand c_t = Builder::sbuf(0, P, c_addr + k * stride, p.free, p.dtype);
        // Queues in order of first use, as the frontend numbers its streams: buffer k's three.
        const auto queue = [&](Queue q) { return uint16_t((3 * k + q) % uint32_t(queues)); };
        b.set_unit(int32_t(i));
        b.dma(b.hbm(t_a, 0, P, c0, c1), a_t, p.dge, queue(kQueueIn0), "load a");
        b.dma(b.hbm(t_b, 0, P, c0, c1), b_t, p.dge, queue(kQueueIn1), "load b");
        Instruction add;
        add.engine = Engine::Dve;
        add.opcode = p.op;
        add.alu[0] = AluOp::add;
        add.dsts = {c_t};
        if (p.op == Opcode::TensorTensor) {
            add.srcs = {a_t, b_t};
        } else {
            add.srcs = {a_t};
            add.scalar[0].column = Builder::sbuf(0, P, b_addr + k * stride, 1, p.dtype);  // this iteration's b
        }
        b.append(std::move(add), c_t, "add");
        b.dma(c_t, b.hbm(t_c, 0, P, c0, c1), p.dge, queue(kQueueOut), "store c");
    }
    auto& c = b.info()["calibration"];
    c["kernel"] = "vector_add";
    c["op"] = opcode_name(p.op);
    c["view"] = {P, cols};
    c["tile"] = {P, p.free};
    c["dtype"] = dtype_name(p.dtype);
    c["iterations"] = iters;
    c["buffers"] = nbuf;
    return b.finish();
}

}  // namespace bnsim::cal
