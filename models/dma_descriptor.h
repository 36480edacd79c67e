#pragma once
// The descriptors a dma_copy is split into: one per partition row of its [P, F] shape, rows
// dealt to the DMA engines in blocks of dma.rows_per_engine (8 rows per engine for P = 128, so a
// full-height copy uses all 16 engines; P = 4 stays on one engine). Each descriptor goes to its
// engine's queue dma.queue, keeping the DMA in order within that queue.
#include <algorithm>
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

// A run of descriptors of one DMA on one engine: `count` descriptors alike but for their HBM
// address, which steps by `stride` (the pitch of the tensor's rows). The DMA models queue, pop
// and plan runs rather than rows: a [128, F] copy is 16 runs of 8 strided rows (or 16 merged
// descriptors), not 128 descriptors built and queued one by one.
struct DmaRun {
    DmaDescriptor first;  // the run's first descriptor
    uint32_t count = 0;
    uint64_t stride = 0;  // HBM address step from one descriptor to the next
};

// `lane` is `first` on the engine k after first's: the same descriptors, k * lane_stride further
// in HBM (a DMA alike on every engine of a core, or one of a lockstep group's lanes).
inline bool is_lane_run(const DmaRun& lane, const DmaRun& first, size_t k, uint64_t lane_stride) {
    const DmaDescriptor& d = lane.first;
    const DmaDescriptor& a = first.first;
    return d.engine == a.engine + k && lane.count == first.count && lane.stride == first.stride && d.dma == a.dma &&
           d.queue == a.queue && d.bytes == a.bytes && d.hbm_bytes == a.hbm_bytes && d.hbm_write == a.hbm_write &&
           d.sbuf_side == a.sbuf_side && d.hbm_addr == a.hbm_addr + k * lane_stride;
}

// Calls fn(const DmaRun&) for the runs of a dma_copy: each engine's runs in row order, so
// expanding them gives each engine the descriptors for_each_descriptor gives it, in its order
// (engines interleave differently: an engine's queues do not see the others'). Throws as
// for_each_descriptor.
template <class Fn>
void for_each_run(const Instruction& ins, const Trace& trace, const HwConfig& hw, Fn&& fn);

// A DMA whose rows fill one block on every engine (rows = dma.rows_per_engine x
// dma.engines_per_core, as a [128, F] copy's do): its runs, one per engine, are alike but for
// their HBM address, which steps by *lane_stride from one engine to the next (0 with one engine
// or no HBM side). Sets *first to engine 0's run (for_each_run's first) and returns true; returns
// false for any other DMA. Throws as for_each_descriptor.
bool dma_runs_alike(const Instruction& ins, const Trace& trace, const HwConfig& hw, DmaRun* first,
                    uint64_t* lane_stride);

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

template <class Fn>
void for_each_run(const Instruction& ins, const Trace& trace, const HwConfig& hw, Fn&& fn) {
    const DmaRowSource src = dma_row_source(ins, trace, hw);
    const uint32_t rows = src.shape.rows;
    const uint64_t per_engine = uint64_t(hw.dma.rows_per_engine);
    DmaRun run;
    run.first.dma = ins.id;
    run.first.queue = ins.dma.queue;
    run.first.bytes = src.shape.desc_bytes;
    run.first.sbuf_side = src.shape.sbuf_side;
    const bool hbm = src.tensor != nullptr;
    if (hbm) {
        run.first.hbm_bytes = src.shape.hbm_bytes;
        run.first.hbm_write = src.shape.hbm_write;
        run.stride = src.tensor->row_bytes;
    }
    // Rows continue each other in HBM exactly when a row's bytes are the whole tensor row.
    const bool merge = hw.dma.merge_contiguous_rows && hbm && uint64_t(src.shape.hbm_bytes) == src.tensor->row_bytes;
    // The closed form covers every engine taking at most one block of rows (a block's rows are
    // consecutive, blocks of one engine are not) with merged byte counts that fit their fields;
    // anything else (more rows than engines x rows_per_engine) gathers for_each_descriptor's
    // descriptors into runs.
    if (uint64_t(rows) <= per_engine * uint64_t(hw.dma.engines_per_core) &&
        (!merge || uint64_t(rows) * src.shape.hbm_bytes <= UINT32_MAX)) {
        // Block b of rows goes to engine b (dma_engine_of_row: there are no more blocks than engines).
        uint16_t engine = 0;
        for (uint32_t lo = 0; lo < rows; lo += uint32_t(per_engine), ++engine) {
            const uint32_t n = uint32_t(std::min<uint64_t>(per_engine, rows - lo));
            run.first.engine = engine;
            if (hbm) run.first.hbm_addr = src.tensor->base_addr + uint64_t(src.hbm->row_lo + lo) * src.tensor->row_bytes + src.hbm->byte_lo;
            if (merge) {
                DmaRun one = run;
                one.first.bytes = n * src.shape.desc_bytes;  // wraps as for_each_descriptor's sum would
                one.first.hbm_bytes = n * src.shape.hbm_bytes;
                one.count = 1;
                fn(static_cast<const DmaRun&>(one));
            } else {
                run.count = n;
                fn(static_cast<const DmaRun&>(run));
            }
        }
        return;
    }
    // Each engine's open run, extended while descriptors stay alike at a constant address step.
    std::vector<DmaRun> open(size_t(hw.dma.engines_per_core));
    for_each_descriptor(ins, trace, hw, [&](const DmaDescriptor& d) {
        DmaRun& r = open[d.engine];
        if (r.count > 0 && d.bytes == r.first.bytes && d.hbm_bytes == r.first.hbm_bytes) {
            const uint64_t step = r.count == 1 ? d.hbm_addr - r.first.hbm_addr : r.stride;
            if (d.hbm_addr == r.first.hbm_addr + r.count * step) {
                r.stride = step;
                ++r.count;
                return;
            }
        }
        if (r.count > 0) fn(static_cast<const DmaRun&>(r));
        r.first = d;
        r.count = 1;
        r.stride = 0;
    });
    for (const DmaRun& r : open)
        if (r.count > 0) fn(r);
}

}  // namespace bnsim
