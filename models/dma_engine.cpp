#include "models/dma_engine.h"

#include <algorithm>

#include "models/action_queue.h"

namespace bnsim {

DmaEngine::DmaEngine(sc_core::sc_module_name name, const CostModel& cost, HbmIF& hbm, Sbuf& sbuf,
                     DescriptorSinkIF& sink)
    : sc_core::sc_module(name), cost_(cost), hbm_(hbm), sbuf_(sbuf), sink_(sink),
      queues_(size_t(cost.hw().dma.queues_per_engine)) {
    SC_METHOD(step);
    sensitive << wake_;
    dont_initialize();
}

size_t DmaEngine::queued() const { return queued_; }

void DmaEngine::push(const DmaDescriptor& d) {
    queues_[d.queue].push_back(d);
    ++queued_;
    if (!busy_) wake_.notify(sc_core::SC_ZERO_TIME);
}

void DmaEngine::step() {
    const double now = now_ns();
    if (busy_ && now + kTimeEpsNs < busy_until_) return;  // woken early; the pending notify stays
    busy_ = false;
    if (queued_ == 0) return;
    // Round-robin: the first non-empty queue at or after the pointer.
    const size_t nq = queues_.size();
    size_t q = next_queue_;
    while (queues_[q].empty()) q = (q + 1) % nq;
    DmaDescriptor d = queues_[q].front();
    queues_[q].pop_front();
    --queued_;
    next_queue_ = (q + 1) % nq;

    double done = now + cost_.descriptor_ns(d.bytes);
    double latency = 0;
    if (d.hbm_bytes) {
        done = std::max(done, hbm_.transfer(d.hbm_addr, d.hbm_bytes, d.hbm_write, now));
        latency += hbm_.latency_ns();
    }
    if (d.sbuf_side) latency += sbuf_.dma_access(d.bytes, !d.hbm_write);
    busy_ = true;
    busy_until_ = done;
    busy_ns_ += done - now;
    ++descriptors_;
    bytes_ += d.bytes;
    sink_.descriptor_started(d, now, done + latency);
    wake_.notify(sc_core::sc_time(done - now, sc_core::SC_NS));
}

}  // namespace bnsim
