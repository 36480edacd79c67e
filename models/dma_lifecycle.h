#pragma once
// The one DMA timing rule: a dma_copy's lifecycle from its trigger on an engine stream to the
// semaphore its consumers wait on, written once and used by the SystemC models (DmaController,
// DmaEngine), the list scheduler's estimate (IdealDmaTimeline) and the run report's lower bounds,
// as CostModel::engine_ns is for instructions.
//
//   issue       a hardware DGE unit (models/dge.h says which) generates the descriptors in
//               dma.issue_ns; software DGE already paid for it on the Pool stream; pre-generated
//               descriptors (DgeMode::none) need nothing;
//   dispatch    dma.dispatch_ns later the descriptors are on queue dma.queue of their engines;
//   trains      each engine moves its descriptors of the DMA (its train) one after another, each
//               bytes / engine bandwidth + dma.descriptor_overhead_ns (longer if the HBM channels
//               it needs are busy);
//   occupancy   a queue starts a DMA's first descriptor no sooner than dma.min_queue_occupancy_ns
//               after it started the previous DMA's first one (so, train by train, a queue is held
//               max(train time, dma.min_queue_occupancy_ns) by each DMA);
//   landing     a descriptor's data lands the HBM access latency (if one side is HBM) plus the SBUF
//               access latency (if one side is SBUF) after it has moved;
//   completion  dma.completion_ns after the last descriptor landed the semaphore is signalled.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "models/dge.h"
#include "models/dma_descriptor.h"
#include "models/hw_config.h"
#include "trace/instruction.h"
#include "trace/trace.h"

namespace bnsim {

// One engine's share of a DMA: its descriptors, moved back to back.
struct DmaTrain {
    uint16_t engine = 0;
    uint32_t descriptors = 0;
    double work_ns = 0;  // summed descriptor time, in row order
};

// What the timing rule needs of a DMA, without its descriptors' addresses: its row shape, queue
// and one train per engine it uses (engines ascending).
struct DmaPlan {
    uint32_t dma = 0;
    uint16_t queue = 0;
    DgeMode dge = DgeMode::hardware;
    Engine issuer = Engine::Sync;  // the engine whose stream triggers it
    DmaRowShape shape;
    std::vector<DmaTrain> trains;
    uint32_t descriptors() const;
};

// When a triggered DMA's descriptors are generated and reach the queues.
struct DmaIssue {
    double start = 0, end = 0;  // descriptor generation (DGE unit, or software on the Pool stream)
    double dispatch = 0;        // descriptors on the engines' queues
};

class DmaLifecycle {
public:
    explicit DmaLifecycle(const HwConfig& hw) : hw_(hw) {}
    const HwConfig& hw() const { return hw_; }

    DmaPlan plan(const Instruction& ins, const Trace& trace) const;

    // A DMA whose stream (of engine `issuer`) reached it (dependencies met) at stream_ready and
    // triggered it at triggered; a hardware DGE DMA takes a unit of `dge`.
    DmaIssue issue(DgeMode mode, Engine issuer, double stream_ready, double triggered, Dge& dge) const;
    // Time one DMA engine spends moving one descriptor of `bytes`.
    double descriptor_ns(double bytes) const {
        return bytes / hw_.dma.engine_bandwidth_gbps + hw_.dma.descriptor_overhead_ns;
    }
    // A run of `count` strided rows of `bytes` each on one engine goes as packets of this many
    // rows: rows share a packet up to dma.packet_bytes (at least one row each).
    uint32_t packet_rows(uint32_t bytes, uint32_t count) const {
        if (count <= 1 || bytes == 0 || hw_.dma.packet_bytes <= 0) return 1;
        return std::clamp<uint32_t>(uint32_t(hw_.dma.packet_bytes) / bytes, 1, count);
    }
    // Time one DMA engine spends on row k (from 0) of such a run: its bytes, and the descriptor
    // overhead if the row opens a packet. One descriptor alone is descriptor_ns.
    double row_ns(double bytes, uint32_t k, uint32_t packet_rows) const {
        return row_data_ns(bytes) + packet_overhead_ns(k, packet_rows);
    }
    // Its two parts: the bytes' time (the same for every row of a run, so a DMA engine works it
    // out once per run) and the overhead of a row that opens a packet.
    double row_data_ns(double bytes) const { return bytes / hw_.dma.engine_bandwidth_gbps; }
    double packet_overhead_ns(uint32_t k, uint32_t packet_rows) const {
        return packet_rows == 1 || k % packet_rows == 0 ? hw_.dma.descriptor_overhead_ns : 0.0;
    }
    // Earliest start of a queue's next DMA when it started its current one at first_start_ns.
    double next_dma_at(double first_start_ns) const { return first_start_ns + hw_.dma.min_queue_occupancy_ns; }
    // Per train: how long a queue is held by a DMA whose train takes work_ns on it.
    double queue_occupancy_ns(double work_ns) const { return std::max(work_ns, hw_.dma.min_queue_occupancy_ns); }
    // From a descriptor's (or, all alike, a DMA's rows') data moved to landed.
    double landing_ns(const DmaDescriptor& d) const { return landing_ns(d.hbm_bytes > 0, d.sbuf_side); }
    double landing_ns(const DmaRowShape& s) const { return landing_ns(s.hbm_read || s.hbm_write, s.sbuf_side); }
    // The semaphore time of a DMA whose last descriptor landed at last_landed_ns.
    double completion_at(double last_landed_ns) const { return last_landed_ns + hw_.dma.completion_ns; }
    // Fixed latency outside data movement: issue on a hardware DGE (if used), dispatch, completion.
    double fixed_ns(DgeMode mode) const;

private:
    double landing_ns(bool hbm, bool sbuf) const {
        double ns = 0;
        if (hbm) ns += hw_.hbm.latency_ns;
        if (sbuf) ns += hw_.sbuf.access_latency_ns;
        return ns;
    }
    const HwConfig& hw_;
};

// Plans DMA after DMA (DmaLifecycle::plan), reusing the last plan's trains for a DMA of the same
// row shape: when every engine takes at most one block of rows (for_each_run's closed form), a
// DMA's trains depend on its row count, row bytes and whether its rows merge, not on its
// addresses, and a kernel's DMAs come in a few shapes. One per pass over a trace (not shared
// across threads).
class DmaPlanner {
public:
    explicit DmaPlanner(const DmaLifecycle& rule) : rule_(rule) {}
    // The plan, valid until the next call (a reused plan is not copied).
    const DmaPlan& plan(const Instruction& ins, const Trace& trace);

private:
    struct Key {
        uint32_t rows = 0, desc_bytes = 0, hbm_bytes = 0;
        bool hbm = false, merge = false;
        bool operator==(const Key& o) const {
            return rows == o.rows && desc_bytes == o.desc_bytes && hbm_bytes == o.hbm_bytes && hbm == o.hbm &&
                   merge == o.merge;
        }
    };
    const DmaLifecycle& rule_;
    bool have_ = false;  // last_ is the plan of a DMA whose trains depend on key_ alone
    Key key_;
    DmaPlan last_;  // the plan returned last
};

// A DMA's lifecycle times.
struct DmaTimes {
    double issue_start = 0, issue_end = 0;  // descriptor generation
    double dispatch = 0;                    // descriptors on the queues
    double data_start = 0;                  // first descriptor starts moving
    double data_end = 0;                    // last descriptor landed
    double end = 0;                         // semaphore signalled
};

// The DMA side of one core as the list scheduler sees it: the DGE units, each DMA engine's busy
// horizon and each queue's earliest next DMA, trains served back to back in trigger order, no HBM
// contention. run() returns a DMA's estimated lifecycle times.
class IdealDmaTimeline {
public:
    explicit IdealDmaTimeline(const DmaLifecycle& rule);
    DmaTimes run(const DmaPlan& p, double stream_ready, double triggered);

    // Busy time and descriptors of each DMA engine, busy time of the DGE units, so far.
    const std::vector<double>& engine_busy_ns() const { return engine_busy_; }
    const std::vector<uint64_t>& engine_descriptors() const { return engine_descriptors_; }
    double dge_busy_ns() const { return dge_.busy_ns(); }

private:
    const DmaLifecycle& rule_;
    Dge dge_;
    std::vector<double> engine_free_;  // [engine]
    std::vector<double> queue_next_;   // [engine * queues + queue]: earliest start of a new DMA
    std::vector<double> engine_busy_;
    std::vector<uint64_t> engine_descriptors_;
};

}  // namespace bnsim
