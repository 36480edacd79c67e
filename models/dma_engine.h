#pragma once
// One DMA engine of a core: dma.queues_per_engine descriptor queues, in order within a queue,
// served round-robin across the ready non-empty queues, one descriptor at a time. Its timing is
// the DMA lifecycle's (models/dma_lifecycle.h): a descriptor takes the longer of its descriptor
// time and the HBM channels' service of its bytes; its data lands the landing latency later
// (pipelined: the engine starts the next descriptor meanwhile); a queue is not ready for a new
// DMA's first descriptor before the rule's next_dma_at of the previous DMA's first descriptor
// (the per-DMA occupancy M6's small-transfer throughput shows); meanwhile the engine serves the
// other queues.
#include <cstdint>
#include <deque>
#include <vector>

#include <systemc>

#include "models/dma_descriptor.h"
#include "models/dma_lifecycle.h"
#include "models/hbm.h"
#include "models/sbuf.h"

namespace bnsim {

// Told when a descriptor starts moving and when its data will have landed.
class DescriptorSinkIF {
public:
    virtual ~DescriptorSinkIF() = default;
    virtual void descriptor_started(const DmaDescriptor& d, double start_ns, double landed_ns) = 0;
};

class DmaEngine : public sc_core::sc_module {
public:
    SC_HAS_PROCESS(DmaEngine);
    DmaEngine(sc_core::sc_module_name name, const DmaLifecycle& rule, HbmIF& hbm, Sbuf& sbuf, DescriptorSinkIF& sink);

    void push(const DmaDescriptor& d);

    double busy_ns() const { return busy_ns_; }
    uint64_t descriptors() const { return descriptors_; }
    uint64_t bytes() const { return bytes_; }
    size_t queued() const;

private:
    void step();

    const DmaLifecycle& rule_;
    HbmIF& hbm_;
    Sbuf& sbuf_;
    DescriptorSinkIF& sink_;
    struct QueueState {
        std::deque<DmaDescriptor> descs;
        bool started = false;   // some DMA started on this queue
        uint32_t last_dma = 0;  // the DMA it started last
        double ready_at = 0;    // earliest start of a different DMA's first descriptor
    };
    bool ready(const QueueState& q, double now) const;

    std::vector<QueueState> queues_;
    size_t next_queue_ = 0;  // round-robin pointer
    size_t queued_ = 0;
    bool busy_ = false;
    double busy_until_ = 0;
    sc_core::sc_event wake_;
    double busy_ns_ = 0;
    uint64_t descriptors_ = 0, bytes_ = 0;
};

}  // namespace bnsim
