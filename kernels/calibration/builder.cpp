#include "kernels/calibration/builder.h"

namespace bnsim::cal {

const char* direction_name(Direction d) {
    return d == Direction::hbm_to_sbuf ? "hbm_to_sbuf" : "sbuf_to_hbm";
}

const char* vector_op_name(VectorOp op) {
    switch (op) {
    case VectorOp::tensor_copy: return "tensor_copy";
    case VectorOp::tensor_tensor: return "tensor_tensor";
    case VectorOp::tensor_scalar: return "tensor_scalar";
    case VectorOp::tensor_reduce: return "tensor_reduce";
    }
    return "?";
}

void fail(const char* kernel, const std::string& key, const std::string& message) {
    throw KernelError(std::string(kernel) + "." + key + ": " + message);
}

Builder::Builder(const char* kernel, const KernelTarget& t, uint32_t partitions) : t_(t) {
    if (t.num_cores != 1)
        throw KernelError(std::string(kernel) + ": the calibration kernels run on one NeuronCore (lnc: 1), got lnc " +
                          std::to_string(t.num_cores));
    if (partitions < 1 || partitions > uint32_t(t.partitions))
        fail(kernel, "partitions", "must be in [1, " + std::to_string(t.partitions) + "] (the SBUF partitions), got " +
                                       std::to_string(partitions));
    out_.trace.kernel = kernel;
    out_.trace.num_cores = 1;
}

uint32_t Builder::hbm_tensor(const std::string& name, DType dt, uint64_t rows, uint64_t cols, bool input) {
    HbmTensor h;
    h.name = name;
    h.dtype = dt;
    h.shape = {int64_t(rows), int64_t(cols)};
    h.rows = rows;
    h.row_bytes = cols * uint64_t(dtype_size(dt));
    h.is_input = input;
    h.is_output = !input;
    return out_.trace.add_tensor(h);
}

Operand Builder::hbm(uint32_t tensor, uint64_t r0, uint64_t r1, uint64_t c0, uint64_t c1) const {
    const HbmTensor& h = out_.trace.tensor(tensor);
    const uint64_t ds = uint64_t(dtype_size(h.dtype));
    Operand o;
    o.region = out_.trace.hbm(tensor, r0, r1, c0 * ds, c1 * ds);
    o.dtype = h.dtype;
    return o;
}

uint64_t Builder::sbuf_alloc(uint64_t bytes, const std::string& what) {
    const uint64_t addr = aligned(sbuf_top_);
    if (addr + bytes > t_.sbuf_usable_bytes)
        throw KernelError(out_.trace.kernel + ": " + what + " needs " + std::to_string(bytes) +
                          " bytes per partition at offset " + std::to_string(addr) + ", but only " +
                          std::to_string(t_.sbuf_usable_bytes) + " bytes per partition of SBUF are usable");
    sbuf_top_ = addr + bytes;
    return addr;
}

uint64_t Builder::aligned(uint64_t bytes) const {
    const uint64_t a = t_.sbuf_align ? t_.sbuf_align : 1;
    return (bytes + a - 1) / a * a;
}

uint64_t Builder::sbuf_free_bytes() const {
    const uint64_t top = aligned(sbuf_top_);
    return top >= t_.sbuf_usable_bytes ? 0 : t_.sbuf_usable_bytes - top;
}

Operand Builder::sbuf(uint32_t p0, uint32_t p1, uint64_t addr, uint64_t elems, DType dt) {
    return sbuf_operand(0, p0, p1, addr, elems * uint64_t(dtype_size(dt)), dt);
}

Operand Builder::psum(uint32_t p0, uint32_t p1, uint64_t elems, DType dt) {
    Operand o = sbuf(p0, p1, 0, elems, dt);
    o.region.space = Space::Psum;
    return o;
}

uint32_t Builder::append(Instruction in, const Operand& main, const char* what) {
    in.core = 0;
    in.partitions = main.region.rows();
    in.free_elems = main.elems_per_row();
    in.tag.what = what;
    in.tag.unit = unit_;
    return out_.trace.append(std::move(in)).id;
}

uint32_t Builder::dma(const Operand& src, const Operand& dst, DgeMode dge, uint16_t queue, const char* what) {
    Instruction in;
    // Hardware DGE (and a pre-generated descriptor queue) is triggered from the Sync engine's
    // stream, software DGE runs on GpSimd.
    in.engine = dge == DgeMode::software ? Engine::Pool : Engine::Sync;
    in.opcode = Opcode::DmaCopy;
    in.srcs = {src};
    in.dsts = {dst};
    in.dma.dge = dge;
    in.dma.queue = queue;
    return append(std::move(in), dst.region.space == Space::Sbuf ? dst : src, what);
}

GeneratedKernel Builder::finish() {
    derive_dependencies(out_.trace);
    auto& c = out_.info["calibration"];
    c["measured_instructions"] = measured_;
    out_.measured_instructions = measured_;
    if (c.contains("bytes")) out_.measured_bytes = c["bytes"].get<uint64_t>();
    out_.summary.set("measured_instructions", int64_t(measured_.size()));
    return std::move(out_);
}

}  // namespace bnsim::cal
