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

DmaRowSource dma_row_source(const Instruction& ins, const Trace& trace, const HwConfig& hw) {
    DmaRowSource r;
    r.shape = dma_row_shape(ins);
    if (ins.dma.queue >= hw.dma.queues_per_engine)
        throw std::runtime_error("dma_copy " + std::to_string(ins.id) + " (" + ins.tag.what + ") uses queue " +
                                 std::to_string(ins.dma.queue) + " but engines have " +
                                 std::to_string(hw.dma.queues_per_engine) + " queues");
    if (r.shape.hbm_read) r.hbm = &ins.srcs[0].region;
    if (r.shape.hbm_write) r.hbm = &ins.dsts[0].region;
    if (r.hbm) r.tensor = &trace.tensor(r.hbm->buffer);
    return r;
}

std::vector<DmaDescriptor> split_dma(const Instruction& ins, const Trace& trace, const HwConfig& hw) {
    std::vector<DmaDescriptor> out;
    for_each_descriptor(ins, trace, hw, [&](const DmaDescriptor& d) { out.push_back(d); });
    return out;
}

}  // namespace bnsim
