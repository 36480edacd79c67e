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
      next_ns_(clock.ns(kNever)) {}

void DmaEngine::push(const DmaRun& r, Ticks visible) { push_lanes(r, 0, visible); }

void DmaEngine::push_lanes(const DmaRun& r, uint64_t lane_stride, Ticks visible) {
    const uint16_t queue = r.first.queue;
    auto& descs = queues_[queue].descs;
    if (descs.empty()) {
        active_.insert(std::lower_bound(active_.begin(), active_.end(), queue), queue);
        find_next_active();
    }
    // The run's descriptors share the first's place in its granule if the step between them is
    // whole granules: then all are whole stripes, or all inside one granule, if the first is
    // (in that order of precedence, as Hbm::transfer tells them apart), and neither if it is
    // neither. A group's lanes share it likewise if the step between lanes is whole granules.
    const Interleave& il = hbm_.interleave();
    HbmShape shape = HbmShape::any;
    if (r.first.hbm_bytes > 0 && (r.count == 1 || il.in_granule(r.stride) == 0) &&
        (lanes_.size() < 2 || il.in_granule(lane_stride) == 0)) {
        if (il.whole_stripes(r.first.hbm_addr, r.first.hbm_bytes))
            shape = HbmShape::stripes;
        else if (il.in_granule(r.first.hbm_addr) + r.first.hbm_bytes <= il.granule())
            shape = HbmShape::one_granule;
        else
            shape = HbmShape::partial;
    }
    descs.insert(Pending{r, visible, 0, 0.0, rule_.packet_rows(r.first.bytes, r.count), rule_.row_data_ns(r.first.bytes),
                         rule_.landing_ns(r.first), shape, lane_stride});
    front_[queue] = descs.front().visible;
    queued_ += r.count;
    // An engine that is not moving a descriptor looks at its queues when one arrives.
    if (!busy_ && visible < next_) set_next(visible);
}

bool DmaEngine::ready(const QueueState& q, double now) const {
    if (!q.started || q.descs.front().run.first.dma == q.last_dma) return true;
    return now + kTimeEpsNs >= q.ready_at;
}

// A decision's end, once its descriptor's end is known (`lanes`: how many lanes it stands for).
// Inline: it is the end of every decision of an engine on its own.
inline void DmaEngine::end_decision(Ticks t, double now, size_t q, size_t i, double done, uint32_t lanes) {
    QueueState& qs = queues_[q];
    Pending& p = qs.descs.front();
    p.landed = std::max(p.landed, done + p.landing_ns);
    busy_ = true;
    set_next(t + clock_.delay(done - now));
    --queued_;
    next_queue_ = q + 1;
    next_active_ = i + 1;  // the lower bound of next_queue_ (past the end: from the start)
    if (p.moved == p.run.count) {
        sink_.run_moved(p.run.first.dma, p.run.count * lanes, p.landed);
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

// An engine on its own: its totals, then the decision's end.
inline void DmaEngine::finish(Ticks t, double now, size_t q, size_t i, double done, uint32_t bytes) {
    busy_ns_ += done - now;
    ++descriptors_;
    bytes_ += bytes;
    end_decision(t, now, q, i, done, 1);
}

void DmaEngine::decide() {
    const Ticks t = next_;
    const double now = next_ns_;
    busy_ = false;
    shed_from_ = shed_to_ = 0;
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

    if (!qs.started || dma != qs.last_dma) {
        qs.started = true;
        qs.last_dma = dma;
        qs.ready_at = rule_.next_dma_at(now);
    }
    if (is_group_) {
        decide_lanes(t, now, q, i);
        return;
    }
    double done = now + (p.row_data_ns + rule_.packet_overhead_ns(p.moved - 1, p.packet_rows));
    if (d.hbm_bytes) {
        double moved;
        switch (p.hbm_shape) {
        case HbmShape::stripes: moved = hbm_.transfer_stripes(d.hbm_bytes, d.hbm_write, now); break;
        case HbmShape::one_granule: moved = hbm_.transfer_in_granule(d.hbm_addr, d.hbm_bytes, d.hbm_write, now); break;
        case HbmShape::partial: moved = hbm_.transfer_partial(d.hbm_addr, d.hbm_bytes, d.hbm_write, now); break;
        default: moved = hbm_.transfer(d.hbm_addr, d.hbm_bytes, d.hbm_write, now);
        }
        done = std::max(done, moved);
        d.hbm_addr += p.run.stride;  // the next descriptor's
    }
    if (d.sbuf_side) sbuf_.dma_access(d.bytes, !d.hbm_write);
    finish(t, now, q, i, done, d.bytes);
}

void DmaEngine::decide_lanes(Ticks t, double now, size_t q, size_t i) {
    Pending& p = queues_[q].descs.front();
    DmaDescriptor& d = p.run.first;
    const size_t n = in_group_;
    // Each lane's descriptor, in lane order, as the lanes deciding one after another at this
    // instant would reserve the channels.
    const double engine_end = now + (p.row_data_ns + rule_.packet_overhead_ns(p.moved - 1, p.packet_rows));
    double* done = lane_done_.data();
    bool in_step = true;
    double lanes_end = engine_end;  // every lane's descriptor's end, when in step
    if (d.hbm_bytes && p.hbm_shape == HbmShape::stripes) {
        hbm_.transfer_stripes_n(d.hbm_bytes, d.hbm_write, now, n, done);
        // Whole-stripe reservations at one instant end in order (each after the one before):
        // when the last ends by the engine's own end, all descriptors end then; else the lanes
        // are in step when the first and last end alike.
        if (done[n - 1] > engine_end) {
            for (size_t k = 0; k < n; ++k) done[k] = std::max(engine_end, done[k]);
            in_step = done[n - 1] == done[0];
            lanes_end = done[0];
        }
        d.hbm_addr += p.run.stride;
    } else if (d.hbm_bytes) {
        // Lanes a whole number of granules apart make transfers of one shape; others, each its own.
        if (hbm_.interleave().in_granule(p.lane_stride) == 0) {
            hbm_.transfer_n(d.hbm_addr, p.lane_stride, d.hbm_bytes, d.hbm_write, now, n, done);
        } else {
            uint64_t addr = d.hbm_addr;
            for (size_t k = 0; k < n; ++k, addr += p.lane_stride) done[k] = hbm_.transfer(addr, d.hbm_bytes, d.hbm_write, now);
        }
        for (size_t k = 0; k < n; ++k) done[k] = std::max(engine_end, done[k]);
        for (size_t k = 1; k < n; ++k) in_step &= done[k] == done[0];
        lanes_end = done[0];
        d.hbm_addr += p.run.stride;
    }
    if (d.sbuf_side) sbuf_.dma_accesses(d.bytes, n, !d.hbm_write);
    const uint32_t bytes = d.bytes;
    if (in_step) {
        // Every lane's busy time in one sweep; descriptors and bytes alike for all, counted once.
        const double moving = lanes_end - now;
        double* __restrict busy = lane_busy_ns_.data();
        for (size_t k = 0; k < n; ++k) busy[k] += moving;
        ++joined_descriptors_;
        joined_bytes_ += bytes;
        end_decision(t, now, q, i, lanes_end, uint32_t(n));
        return;
    }
    // Out of step. The lanes ending with the first (a prefix, when each lane's shares queue
    // behind the lanes' before it on the same channels) stay in the group if two or more; the
    // others take the state as it is before this decision's end and end it each with its own
    // time, after the group, in lane order (the sink hears their runs in that order).
    size_t m = 1;
    while (m < n && done[m] == done[0]) ++m;
    if (m == 1) {
        split();
        for (size_t k = 0; k < n; ++k) lanes_[k]->finish(t, now, q, i, done[k], bytes);
        return;
    }
    for (size_t k = m; k < n; ++k) lanes_[k]->take_lane_state(*this, k);
    in_group_ = m;
    shed_from_ = m;
    shed_to_ = n;
    const double moving = lanes_end - now;
    for (size_t k = 0; k < m; ++k) lane_busy_ns_[k] += moving;
    ++joined_descriptors_;
    joined_bytes_ += bytes;
    end_decision(t, now, q, i, lanes_end, uint32_t(m));
    for (size_t k = m; k < n; ++k) lanes_[k]->finish(t, now, q, i, done[k], bytes);
}

void DmaEngine::make_group(std::vector<DmaEngine*> lanes) {
    is_group_ = true;
    lanes_ = std::move(lanes);
    const size_t n = lanes_.size();
    lane_done_.assign(n, 0.0);
    lane_busy_ns_.resize(n);
    lane_descriptors_.resize(n);
    lane_bytes_.resize(n);
    for (size_t k = 0; k < n; ++k) {
        lanes_[k]->group_ = this;
        lanes_[k]->lane_ = k;
    }
    if (n > 0) join();  // the lanes are new: idle and alike
}

void DmaEngine::take_queue_histories(const DmaEngine& from) {
    for (size_t q = 0; q < queues_.size(); ++q) {
        QueueState& mine = queues_[q];
        const QueueState& theirs = from.queues_[q];
        mine.started = theirs.started;
        mine.last_dma = theirs.last_dma;
        mine.ready_at = theirs.ready_at;
    }
}

void DmaEngine::take_decision_state(const DmaEngine& from) {
    take_queue_histories(from);
    front_ = from.front_;
    active_ = from.active_;
    next_queue_ = from.next_queue_;
    next_active_ = from.next_active_;
    queued_ = from.queued_;
    busy_ = from.busy_;
    next_ = from.next_;
    next_ns_ = from.next_ns_;
}

void DmaEngine::take_lane_state(const DmaEngine& g, size_t k) {
    // Only the group's busy queues hold runs; the lane's are empty (the group took them).
    take_decision_state(g);
    for (uint16_t q : g.active_)
        queues_[q].descs.assign(g.queues_[q].descs, [k](Pending& p) {
            p.run.first.hbm_addr += k * p.lane_stride;
            p.run.first.engine = uint16_t(p.run.first.engine + k);
            p.lane_stride = 0;
        });
    busy_ns_ = g.lane_busy_ns_[k];
    descriptors_ = g.lane_descriptors_[k] + g.joined_descriptors_;
    bytes_ = g.lane_bytes_[k] + g.joined_bytes_;
}

void DmaEngine::split() {
    shed_from_ = 0;
    shed_to_ = in_group_;
    for (size_t k = 0; k < in_group_; ++k) lanes_[k]->take_lane_state(*this, k);
    make_empty();
    in_group_ = 0;
}

bool DmaEngine::histories_alike(const QueueState& a, const QueueState& b, double settled_ns) {
    // A queue's last DMA holds back the next only until its ready_at; every decision still to
    // come is at settled_ns or later, so a queue state ready by then is as good as any other.
    const bool a_holds = a.started && a.ready_at > settled_ns + kTimeEpsNs;
    const bool b_holds = b.started && b.ready_at > settled_ns + kTimeEpsNs;
    if (!a_holds && !b_holds) return true;
    return a.started == b.started && a.last_dma == b.last_dma && a.ready_at == b.ready_at;
}

bool DmaEngine::lanes_can_join(double settled_ns) const {
    const DmaEngine& first = *lanes_[0];
    const size_t nq = queues_.size();
    for (const DmaEngine* lane : lanes_) {
        // (A scan from past the last queue starts at the first, as one from 0 does.)
        if (lane->queued_ != 0 || lane->busy_ || lane->next_ != kNever ||
            lane->next_queue_ % nq != first.next_queue_ % nq)
            return false;
    }
    for (const DmaEngine* lane : lanes_)
        for (size_t q = 0; q < nq; ++q)
            if (!histories_alike(lane->queues_[q], first.queues_[q], settled_ns)) return false;
    return true;
}

void DmaEngine::take_lane_totals() {
    for (size_t k = 0; k < lanes_.size(); ++k) {
        if (k < in_group_) {  // the group's already: fold in what it counted for every lane
            lane_descriptors_[k] += joined_descriptors_;
            lane_bytes_[k] += joined_bytes_;
        } else {
            lane_busy_ns_[k] = lanes_[k]->busy_ns_;
            lane_descriptors_[k] = lanes_[k]->descriptors_;
            lane_bytes_[k] = lanes_[k]->bytes_;
        }
    }
    joined_descriptors_ = joined_bytes_ = 0;
    in_group_ = lanes_.size();
}

void DmaEngine::join() {
    const DmaEngine& first = *lanes_[0];
    take_queue_histories(first);
    next_queue_ = first.next_queue_;
    find_next_active();
    take_lane_totals();
}

bool DmaEngine::lanes_due_alike() const {
    // Compared with the group's state (lane 0's addresses, each run's lane stride its own) if it
    // holds lanes, else with lane 0's (each run's lane stride lane 1's address less lane 0's).
    const bool held = in_group_ > 0;
    const DmaEngine& ref = held ? *this : *lanes_[0];
    const size_t from = held ? in_group_ : 1;
    const size_t nq = queues_.size();
    const double settled_ns = ref.next_ns_;  // the decision they are due at, the earliest to come
    for (size_t k = from; k < lanes_.size(); ++k) {
        const DmaEngine& lane = *lanes_[k];
        if (lane.next_ != ref.next_ || lane.busy_ != ref.busy_ || lane.queued_ != ref.queued_ ||
            lane.next_queue_ % nq != ref.next_queue_ % nq || lane.active_ != ref.active_)
            return false;
    }
    for (uint16_t q : ref.active_) {
        const RunFifo& runs = ref.queues_[q].descs;
        for (size_t k = from; k < lanes_.size(); ++k) {
            const RunFifo& theirs = lanes_[k]->queues_[q].descs;
            if (theirs.size() != runs.size()) return false;
            for (size_t j = 0; j < runs.size(); ++j) {
                const Pending& a = runs[j];
                const Pending& b = theirs[j];
                if (!is_lane_run(b.run, a.run, k, held ? a.lane_stride : derived_lane_stride(q, j)) ||
                    b.visible != a.visible || b.moved != a.moved || b.packet_rows != a.packet_rows ||
                    b.row_data_ns != a.row_data_ns || b.landing_ns != a.landing_ns || b.hbm_shape != a.hbm_shape)
                    return false;
            }
        }
    }
    for (size_t k = from; k < lanes_.size(); ++k)
        for (size_t q = 0; q < nq; ++q)
            if (!histories_alike(lanes_[k]->queues_[q], ref.queues_[q], settled_ns)) return false;
    return true;
}

void DmaEngine::rejoin() {
    const size_t from = in_group_;  // lanes [from, n) join; if none was held, lane 0's state is taken
    if (from == 0) {
        const DmaEngine& first = *lanes_[0];
        take_decision_state(first);
        for (uint16_t q : first.active_) {
            RunFifo& runs = queues_[q].descs;
            runs.assign(first.queues_[q].descs, [](Pending&) {});
            for (size_t j = 0; j < runs.size(); ++j) runs[j].lane_stride = derived_lane_stride(q, j);
        }
    }
    // (No difference in effect: each run still has a descriptor to move, which lands after every
    // one moved. Kept so the group's state is the lanes' latest.)
    for (uint16_t q : active_) {
        RunFifo& runs = queues_[q].descs;
        for (size_t j = 0; j < runs.size(); ++j)
            for (size_t k = from; k < lanes_.size(); ++k)
                runs[j].landed = std::max(runs[j].landed, lanes_[k]->queues_[q].descs[j].landed);
    }
    take_lane_totals();
    for (size_t k = from; k < lanes_.size(); ++k) lanes_[k]->make_empty();
}

uint64_t DmaEngine::derived_lane_stride(uint16_t q, size_t j) const {
    if (lanes_.size() < 2) return 0;
    return lanes_[1]->queues_[q].descs[j].run.first.hbm_addr - lanes_[0]->queues_[q].descs[j].run.first.hbm_addr;
}

void DmaEngine::make_empty() {
    for (uint16_t q : active_) queues_[q].descs.clear();
    std::fill(front_.begin(), front_.end(), kNever);
    active_.clear();
    queued_ = 0;
    busy_ = false;
    set_next(kNever);
}

}  // namespace bnsim
