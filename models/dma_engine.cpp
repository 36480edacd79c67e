#include "models/dma_engine.h"

#include <algorithm>

#include "models/action_queue.h"

namespace bnsim {

DmaEngine::DmaEngine(sc_core::sc_module_name name, const DmaLifecycle& rule, HbmIF& hbm, Sbuf& sbuf,
                     DescriptorSinkIF& sink)
    : sc_core::sc_module(name), rule_(rule), hbm_(hbm), sbuf_(sbuf), sink_(sink),
      queues_(size_t(rule.hw().dma.queues_per_engine)) {
    SC_METHOD(step);
    sensitive << wake_;
    dont_initialize();
}

size_t DmaEngine::queued() const { return queued_; }

void DmaEngine::push(const DmaDescriptor& d) {
    queues_[d.queue].descs.push_back(d);
    ++queued_;
    if (!busy_) wake_.notify(sc_core::SC_ZERO_TIME);
}

bool DmaEngine::ready(const QueueState& q, double now) const {
    if (q.descs.empty()) return false;
    if (!q.started || q.descs.front().dma == q.last_dma) return true;
    return now + kTimeEpsNs >= q.ready_at;
}

void DmaEngine::step() {
    const double now = now_ns();
    if (busy_ && now + kTimeEpsNs < busy_until_) {
        // Woken early. Re-arm the end of the current descriptor: the wake-up we armed for it may
        // have been dropped, as SystemC keeps only the earliest pending notification of an event
        // (a push at the instant the engine picked a descriptor leaves a delta notification that
        // cancels the timed one).
        wake_.notify(sc_core::sc_time(busy_until_ - now, sc_core::SC_NS));
        return;
    }
    busy_ = false;
    if (queued_ == 0) return;
    // Round-robin: the first ready non-empty queue at or after the pointer.
    const size_t nq = queues_.size();
    size_t q = next_queue_;
    size_t tried = 0;
    while (tried < nq && !ready(queues_[q], now)) {
        q = (q + 1) % nq;
        ++tried;
    }
    if (tried == nq) {
        // Every non-empty queue waits out its previous DMA's occupancy: sleep to the first ready.
        double wake = 0;
        bool any = false;
        for (const auto& qs : queues_)
            if (!qs.descs.empty() && (!any || qs.ready_at < wake)) {
                wake = qs.ready_at;
                any = true;
            }
        wake_.notify(sc_core::sc_time(std::max(wake - now, 0.0), sc_core::SC_NS));
        return;
    }
    QueueState& qs = queues_[q];
    DmaDescriptor d = qs.descs.front();
    qs.descs.pop_front();
    --queued_;
    next_queue_ = (q + 1) % nq;
    if (!qs.started || d.dma != qs.last_dma) {
        qs.started = true;
        qs.last_dma = d.dma;
        qs.ready_at = rule_.next_dma_at(now);
    }

    double done = now + rule_.descriptor_ns(d.bytes);
    if (d.hbm_bytes) done = std::max(done, hbm_.transfer(d.hbm_addr, d.hbm_bytes, d.hbm_write, now));
    if (d.sbuf_side) sbuf_.dma_access(d.bytes, !d.hbm_write);
    const double latency = rule_.landing_ns(d);
    busy_ = true;
    busy_until_ = done;
    busy_ns_ += done - now;
    ++descriptors_;
    bytes_ += d.bytes;
    sink_.descriptor_started(d, now, done + latency);
    wake_.notify(sc_core::sc_time(done - now, sc_core::SC_NS));
}

}  // namespace bnsim
