#include "models/dma_descriptor.h"

#include <algorithm>
#include <stdexcept>

namespace bnsim {

DmaRowShape dma_row_shape(const Instruction& ins) {
    if (ins.srcs.empty() || ins.dsts.empty())
        throw std::logic_error("dma_copy " + std::to_string(ins.id) + " without a source or destination");
    const Region& s = ins.srcs[0].region;
    const Region& d = ins.dsts[0].region;
    if (s.rows() != d.rows())
        throw std::logic_error("dma_copy " + std::to_string(ins.id) + ": source and destination row counts differ");
    DmaRowShape r;
    r.rows = s.rows();
    r.desc_bytes = uint32_t(std::max(s.bytes_per_row(), d.bytes_per_row()));
    if (s.space == Space::Hbm) {
        r.hbm_read = true;
        r.hbm_bytes = uint32_t(s.bytes_per_row());
    } else if (d.space == Space::Hbm) {
        r.hbm_write = true;
        r.hbm_bytes = uint32_t(d.bytes_per_row());
    }
    r.sbuf_side = s.space == Space::Sbuf || d.space == Space::Sbuf;
    return r;
}

std::vector<DmaDescriptor> split_dma(const Instruction& ins, const Trace& trace, const HwConfig& hw) {
    const DmaRowShape shape = dma_row_shape(ins);
    if (ins.dma.queue >= hw.dma.queues_per_engine)
        throw std::runtime_error("dma_copy " + std::to_string(ins.id) + " (" + ins.tag.what + ") uses queue " +
                                 std::to_string(ins.dma.queue) + " but engines have " +
                                 std::to_string(hw.dma.queues_per_engine) + " queues");
    const Region* hbm = nullptr;
    if (shape.hbm_read) hbm = &ins.srcs[0].region;
    if (shape.hbm_write) hbm = &ins.dsts[0].region;
    const HbmTensor* t = hbm ? &trace.tensor(hbm->buffer) : nullptr;
    std::vector<DmaDescriptor> out;
    out.reserve(shape.rows);
    for (uint32_t i = 0; i < shape.rows; ++i) {
        DmaDescriptor d;
        d.dma = ins.id;
        d.engine = dma_engine_of_row(hw, i);
        d.queue = ins.dma.queue;
        d.bytes = shape.desc_bytes;
        d.sbuf_side = shape.sbuf_side;
        if (t) {
            d.hbm_addr = t->base_addr + uint64_t(hbm->row_lo + i) * t->row_bytes + hbm->byte_lo;
            d.hbm_bytes = shape.hbm_bytes;
            d.hbm_write = shape.hbm_write;
        }
        // Rows of one engine that continue the previous row in HBM join its descriptor.
        if (hw.dma.merge_contiguous_rows && t && !out.empty()) {
            DmaDescriptor& prev = out.back();
            if (prev.engine == d.engine && prev.hbm_addr + prev.hbm_bytes == d.hbm_addr) {
                prev.bytes += d.bytes;
                prev.hbm_bytes += d.hbm_bytes;
                continue;
            }
        }
        out.push_back(d);
    }
    return out;
}

}  // namespace bnsim
