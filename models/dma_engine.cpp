#include "models/dma_engine.h"

#include <algorithm>
#include <cmath>

#include <systemc>

#include "models/action_queue.h"

namespace bnsim {

TickClock::TickClock() : per_ns_(std::round(1e-9 / sc_core::sc_get_time_resolution().to_seconds())) {}

DmaEngine::DmaEngine(const DmaLifecycle& rule, const TickClock& clock, Hbm& hbm, Sbuf& sbuf, DescriptorSinkIF& sink,
                     size_t index)
    : rule_(rule), clock_(clock), hbm_(hbm), sbuf_(sbuf), sink_(sink), index_(index),
      queues_(size_t(rule.hw().dma.queues_per_engine)), front_(queues_.size(), kNever),
      next_ns_(clock.ns(kNever)), priced_ns_(rule.descriptor_ns(0)) {}

void DmaEngine::push(const DmaRun& r, Ticks visible) {
    const uint16_t queue = r.first.queue;
    auto& descs = queues_[queue].descs;
    if (descs.empty()) {
        active_.insert(std::lower_bound(active_.begin(), active_.end(), queue), queue);
        find_next_active();
    }
    if (r.first.bytes != priced_bytes_) {
        priced_bytes_ = r.first.bytes;
        priced_ns_ = rule_.descriptor_ns(r.first.bytes);
    }
    // The run's descriptors share the first's place in its granule if the step between them is
    // whole granules: then all are whole stripes, or all inside one granule, if the first is
    // (in that order of precedence, as Hbm::transfer tells them apart).
    const Interleave& il = hbm_.interleave();
    HbmShape shape = HbmShape::any;
    if (r.first.hbm_bytes > 0 && (r.count == 1 || il.in_granule(r.stride) == 0)) {
        if (il.whole_stripes(r.first.hbm_addr, r.first.hbm_bytes))
            shape = HbmShape::stripes;
        else if (il.in_granule(r.first.hbm_addr) + r.first.hbm_bytes <= il.granule())
            shape = HbmShape::one_granule;
    }
    descs.insert(Pending{r, visible, 0, 0.0, priced_ns_, rule_.landing_ns(r.first), shape});
    front_[queue] = descs.front().visible;
    queued_ += r.count;
    // An engine that is not moving a descriptor looks at its queues when one arrives.
    if (!busy_ && visible < next_) set_next(visible);
}

bool DmaEngine::ready(const QueueState& q, double now) const {
    if (!q.started || q.descs.front().run.first.dma == q.last_dma) return true;
    return now + kTimeEpsNs >= q.ready_at;
}

void DmaEngine::decide() {
    const Ticks t = next_;
    const double now = next_ns_;
    busy_ = false;
    // Round-robin: the first ready queue at or after the pointer whose front has arrived (only
    // the queues holding descriptors need a look, in round-robin order from the pointer).
    const size_t na = active_.size();
    size_t i = next_active_;  // index in active_
    bool found = false, waiting = false;
    double wake = 0;          // earliest ready_at of an arrived but not ready queue
    Ticks arrival = kNever;   // earliest arrival of a descriptor not yet at its queue
    for (size_t k = 0; k < na; ++k, ++i) {
        if (i == na) i = 0;
        const size_t q = active_[i];
        const Ticks v = front_[q];
        if (v > t) {
            arrival = std::min(arrival, v);
            continue;
        }
        const QueueState& qs = queues_[q];
        if (ready(qs, now)) {
            found = true;
            break;
        } else if (!waiting || qs.ready_at < wake) {
            wake = qs.ready_at;
            waiting = true;
        }
    }
    if (!found) {
        // Every arrived queue waits out its previous DMA's occupancy: sleep to the first ready,
        // or until a descriptor arrives.
        set_next(std::min(waiting ? t + clock_.delay(std::max(wake - now, 0.0)) : kNever, arrival));
        return;
    }
    const size_t q = active_[i];
    QueueState& qs = queues_[q];
    Pending& p = qs.descs.front();
    DmaDescriptor& d = p.run.first;  // the run's next descriptor
    const uint32_t dma = d.dma;
    if (p.moved++ == 0) sink_.run_started(dma, now);
    const bool last = p.moved == p.run.count;

    if (!qs.started || dma != qs.last_dma) {
        qs.started = true;
        qs.last_dma = dma;
        qs.ready_at = rule_.next_dma_at(now);
    }
    double done = now + p.descriptor_ns;
    if (d.hbm_bytes) {
        double moved;
        switch (p.hbm_shape) {
        case HbmShape::stripes: moved = hbm_.transfer_stripes(d.hbm_bytes, d.hbm_write, now); break;
        case HbmShape::one_granule: moved = hbm_.transfer_in_granule(d.hbm_addr, d.hbm_bytes, d.hbm_write, now); break;
        default: moved = hbm_.transfer(d.hbm_addr, d.hbm_bytes, d.hbm_write, now);
        }
        done = std::max(done, moved);
        d.hbm_addr += p.run.stride;  // the next descriptor's
    }
    if (d.sbuf_side) sbuf_.dma_access(d.bytes, !d.hbm_write);
    p.landed = std::max(p.landed, done + p.landing_ns);
    busy_ = true;
    set_next(t + clock_.delay(done - now));
    busy_ns_ += done - now;
    ++descriptors_;
    bytes_ += d.bytes;
    --queued_;
    next_queue_ = q + 1;
    next_active_ = i + 1;  // the lower bound of next_queue_ (past the end: from the start)
    if (last) {
        sink_.run_moved(dma, p.run.count, p.landed);
        qs.descs.pop_front();
        if (qs.descs.empty()) {
            front_[q] = kNever;
            active_.erase(active_.begin() + std::ptrdiff_t(i));
            find_next_active();
        } else {
            front_[q] = qs.descs.front().visible;
        }
    }
}

}  // namespace bnsim
