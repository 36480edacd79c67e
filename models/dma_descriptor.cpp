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

bool dma_runs_alike(const Instruction& ins, const Trace& trace, const HwConfig& hw, DmaRun* first,
                    uint64_t* lane_stride) {
    const DmaRowSource src = dma_row_source(ins, trace, hw);
    const uint64_t per_engine = uint64_t(hw.dma.rows_per_engine), engines = uint64_t(hw.dma.engines_per_core);
    if (engines == 0 || uint64_t(src.shape.rows) != per_engine * engines) return false;
    // for_each_run's closed form, its first run.
    DmaRun& run = *first;
    run = DmaRun{};
    run.first.dma = ins.id;
    run.first.queue = ins.dma.queue;
    run.first.bytes = src.shape.desc_bytes;
    run.first.sbuf_side = src.shape.sbuf_side;
    run.count = uint32_t(per_engine);
    *lane_stride = 0;
    if (!src.tensor) return true;
    run.first.hbm_bytes = src.shape.hbm_bytes;
    run.first.hbm_write = src.shape.hbm_write;
    run.stride = src.tensor->row_bytes;
    run.first.hbm_addr = src.tensor->base_addr + uint64_t(src.hbm->row_lo) * src.tensor->row_bytes + src.hbm->byte_lo;
    if (engines > 1)
        *lane_stride = (src.tensor->base_addr + uint64_t(src.hbm->row_lo + uint32_t(per_engine)) * src.tensor->row_bytes +
                        src.hbm->byte_lo) - run.first.hbm_addr;
    if (hw.dma.merge_contiguous_rows && uint64_t(src.shape.hbm_bytes) == src.tensor->row_bytes) {
        if (uint64_t(src.shape.rows) * src.shape.hbm_bytes > UINT32_MAX) return false;  // not the closed form
        run.first.bytes = run.count * src.shape.desc_bytes;
        run.first.hbm_bytes = run.count * src.shape.hbm_bytes;
        run.count = 1;
    }
    return true;
}

std::vector<DmaDescriptor> split_dma(const Instruction& ins, const Trace& trace, const HwConfig& hw) {
    std::vector<DmaDescriptor> out;
    for_each_descriptor(ins, trace, hw, [&](const DmaDescriptor& d) { out.push_back(d); });
    return out;
}

}  // namespace bnsim
