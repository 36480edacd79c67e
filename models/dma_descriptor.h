#pragma once
// The descriptors a dma_copy is split into: one per partition row of its [P, F] shape, rows
// dealt to the DMA engines in blocks of dma.rows_per_engine (8 rows per engine for P = 128, so a
// full-height copy uses all 16 engines; P = 4 stays on one engine). Each descriptor goes to its
// engine's queue dma.queue, keeping the DMA in order within that queue.
#include <cstdint>
#include <vector>

#include "models/hw_config.h"
#include "trace/instruction.h"
#include "trace/trace.h"

namespace bnsim {

struct DmaDescriptor {
    uint32_t dma = 0;         // instruction id
    uint16_t engine = 0;      // DMA engine of the core
    uint16_t queue = 0;
    uint32_t bytes = 0;       // bytes the engine moves (the wider side of a casting copy)
    uint64_t hbm_addr = 0;    // HBM byte address of the row, if one side is HBM
    uint32_t hbm_bytes = 0;   // bytes on the HBM side (0: SBUF to SBUF)
    bool hbm_write = false;   // the HBM side is the destination
    bool sbuf_side = false;   // one side is SBUF
};

// Bytes and direction of one partition row of a DMA.
struct DmaRowShape {
    uint32_t rows = 0;
    uint32_t desc_bytes = 0;
    uint32_t hbm_bytes = 0;
    bool hbm_write = false;
    bool hbm_read = false;
    bool sbuf_side = false;
};
DmaRowShape dma_row_shape(const Instruction& ins);

// Engine a partition row goes to.
inline uint16_t dma_engine_of_row(const HwConfig& hw, uint32_t row) {
    return uint16_t((row / uint32_t(hw.dma.rows_per_engine)) % uint32_t(hw.dma.engines_per_core));
}

// Calls fn(const DmaDescriptor&) for each descriptor of a dma_copy, in row order, without
// storing them. With dma.merge_contiguous_rows, an engine's consecutive rows contiguous in HBM
// are one descriptor. Throws std::runtime_error if the DMA's queue does not exist.
template <class Fn>
void for_each_descriptor(const Instruction& ins, const Trace& trace, const HwConfig& hw, Fn&& fn);

// The same descriptors, collected.
std::vector<DmaDescriptor> split_dma(const Instruction& ins, const Trace& trace, const HwConfig& hw);

// What every descriptor of a DMA shares: its row shape and, if one side is HBM, that region and tensor.
struct DmaRowSource {
    DmaRowShape shape;
    const Region* hbm = nullptr;
    const HbmTensor* tensor = nullptr;
};
DmaRowSource dma_row_source(const Instruction& ins, const Trace& trace, const HwConfig& hw);

template <class Fn>
void for_each_descriptor(const Instruction& ins, const Trace& trace, const HwConfig& hw, Fn&& fn) {
    const DmaRowSource src = dma_row_source(ins, trace, hw);
    DmaDescriptor pending;
    bool have = false;
    for (uint32_t i = 0; i < src.shape.rows; ++i) {
        DmaDescriptor d;
        d.dma = ins.id;
        d.engine = dma_engine_of_row(hw, i);
        d.queue = ins.dma.queue;
        d.bytes = src.shape.desc_bytes;
        d.sbuf_side = src.shape.sbuf_side;
        if (src.tensor) {
            d.hbm_addr = src.tensor->base_addr + uint64_t(src.hbm->row_lo + i) * src.tensor->row_bytes + src.hbm->byte_lo;
            d.hbm_bytes = src.shape.hbm_bytes;
            d.hbm_write = src.shape.hbm_write;
        }
        // Rows of one engine that continue the previous row in HBM join its descriptor.
        if (have && hw.dma.merge_contiguous_rows && src.tensor && pending.engine == d.engine &&
            pending.hbm_addr + pending.hbm_bytes == d.hbm_addr) {
            pending.bytes += d.bytes;
            pending.hbm_bytes += d.hbm_bytes;
            continue;
        }
        if (have) fn(static_cast<const DmaDescriptor&>(pending));
        pending = d;
        have = true;
    }
    if (have) fn(static_cast<const DmaDescriptor&>(pending));
}

}  // namespace bnsim
