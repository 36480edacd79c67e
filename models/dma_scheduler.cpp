#include "models/dma_scheduler.h"

#include <algorithm>
#include <stdexcept>

namespace bnsim {

DmaScheduler::DmaScheduler(sc_core::sc_module_name name, const HwConfig& hw, Hbm& hbm)
    : sc_core::sc_module(name), hbm_(hbm) {
    // One tick less than the dispatch latency: a reach time rounded to ticks may fall a tick early.
    const Ticks dispatch = clock_.delay(hw.dma.dispatch_ns);
    lead_ = dispatch > 0 ? dispatch - 1 : 0;
    SC_METHOD(advance);
    sensitive << wake_;
    dont_initialize();
}

DmaEngine& DmaScheduler::add_engine(const DmaLifecycle& rule, Sbuf& sbuf, DescriptorSinkIF& sink) {
    engines_.push_back(std::make_unique<DmaEngine>(rule, clock_, hbm_, sbuf, sink, engines_.size()));
    deciding_.push_back(engines_.back().get());
    order_.add();
    return *engines_.back();
}

size_t DmaScheduler::add_block(size_t count, const DmaLifecycle& rule, Sbuf& sbuf, DescriptorSinkIF& sink) {
    Block b;
    b.first = engines_.size();
    std::vector<DmaEngine*> lanes;
    for (size_t k = 0; k < count; ++k) lanes.push_back(&add_engine(rule, sbuf, sink));
    b.group = std::make_unique<DmaEngine>(rule, clock_, hbm_, sbuf, sink, b.first);
    b.group->make_group(std::move(lanes));
    b.grouped = count > 0;
    if (b.grouped) deciding_[b.first] = b.group.get();
    blocks_.push_back(std::move(b));
    return blocks_.size() - 1;
}

Ticks DmaScheduler::reach_ticks(uint32_t dma, double reach_ns) const {
    const Ticks reach = clock_.delay(reach_ns);
    if (reach < horizon_)
        throw std::logic_error("DMA " + std::to_string(dma) + " reaches its queue before decisions already made");
    return reach;
}

void DmaScheduler::moved(size_t e, const DmaEngine& who) {
    if (who.next() != order_.time(e)) {
        order_.set(e, who.next());
        arm(who.next());
    }
}

void DmaScheduler::push(DmaEngine& engine, const DmaRun& r, double reach_ns) {
    const Ticks reach = reach_ticks(r.first.dma, reach_ns);
    for (Block& b : blocks_)
        if (b.grouped && engine.index() >= b.first && engine.index() < b.first + b.group->lanes().size())
            split_block(b);
    engine.push(r, reach);
    moved(engine.index(), engine);
}

bool DmaScheduler::alike_on_every_lane(const DmaRun* runs, size_t count, size_t lanes, uint64_t* stride) {
    if (count != lanes || count == 0) return false;
    const DmaRun& a = runs[0];
    if (a.first.engine != 0) return false;
    *stride = count > 1 ? runs[1].first.hbm_addr - a.first.hbm_addr : 0;
    for (size_t k = 0; k < count; ++k)
        if (!is_lane_run(runs[k], a, k, *stride)) return false;
    return true;
}

void DmaScheduler::push_dma(size_t block, const DmaRun* runs, size_t count, double reach_ns) {
    if (count == 0) return;
    const Ticks reach = reach_ticks(runs[0].first.dma, reach_ns);
    Block& b = blocks_[block];
    DmaEngine& g = *b.group;
    uint64_t stride = 0;
    if (alike_on_every_lane(runs, count, g.lanes().size(), &stride)) {
        push_alike(b, runs[0], stride, reach);
        return;
    }
    if (b.grouped) split_block(b);
    const auto& lanes = g.lanes();
    for (size_t k = 0; k < count; ++k) {
        DmaEngine& lane = *lanes[runs[k].first.engine];
        lane.push(runs[k], reach);
        moved(lane.index(), lane);
    }
}

void DmaScheduler::push_alike(size_t block, const DmaRun& first, uint64_t lane_stride, double reach_ns) {
    push_alike(blocks_[block], first, lane_stride, reach_ticks(first.first.dma, reach_ns));
}

void DmaScheduler::push_alike(Block& b, const DmaRun& first, uint64_t lane_stride, Ticks reach) {
    DmaEngine& g = *b.group;
    if (!b.grouped && g.lanes_can_join(clock_.ns(horizon_))) {
        g.join();
        ++joins_count_;
        b.grouped = true;
        deciding_[b.first] = &g;
    }
    size_t k = 0;  // the first lane the group does not hold
    if (b.grouped) {
        g.push_lanes(first, lane_stride, reach);
        moved(b.first, g);
        k = g.lanes_in_group();
    }
    const auto& lanes = g.lanes();
    DmaRun r = first;
    r.first.hbm_addr += k * lane_stride;
    for (; k < lanes.size(); ++k, r.first.hbm_addr += lane_stride) {
        r.first.engine = uint16_t(k);
        lanes[k]->push(r, reach);
        moved(lanes[k]->index(), *lanes[k]);
    }
}

void DmaScheduler::note_split(Block& b, bool whole) {
    if (whole) {
        ++splits_count_;
        b.grouped = false;
    }
    if (eager_ || b.group->in_step_descriptors() >= kWorthRejoining) {
        b.backoff = 0;
    } else {
        b.backoff = std::min(2 * b.backoff + 1, kMaxBackoff);
        b.skip = b.backoff;
    }
}

void DmaScheduler::split_block(Block& b) {
    DmaEngine& g = *b.group;
    const Ticks t = order_.time(b.first);
    const uint64_t round = order_.key(b.first) >> 32;
    g.split();
    note_split(b, true);
    const auto& lanes = g.lanes();
    // Each lane the group held where the group was: due at its time, in its round, in engine order.
    for (size_t k = g.shed_from(); k < g.shed_to(); ++k) {
        deciding_[b.first + k] = lanes[k];
        order_.place(b.first + k, t, round);
    }
}

void DmaScheduler::rejoin_if_alike(Block& b) {
    // Cheap first: every lane the group does not hold due at the time of the first place's
    // decision (the group's, or the first lane's), in its round (so no other engine's decision
    // falls between theirs), before their states are compared.
    DmaEngine& g = *b.group;
    const size_t lanes = g.lanes().size();
    const size_t from = std::max<size_t>(g.lanes_in_group(), 1);
    if (from == lanes) return;
    const Ticks t = order_.time(b.first);
    const uint64_t round = order_.key(b.first) >> 32;
    for (size_t k = from; k < lanes; ++k)
        if (order_.time(b.first + k) != t || order_.key(b.first + k) >> 32 != round) return;
    if (b.skip > 0) {
        --b.skip;
        return;
    }
    if (!g.lanes_due_alike()) return;
    g.rejoin();
    ++joins_count_;
    ++due_joins_count_;
    b.grouped = true;
    deciding_[b.first] = &g;
    // The group decides at the first place (its time and round); the lanes' it took are empty.
    for (size_t k = from; k < lanes; ++k) order_.set(b.first + k, kNever);
}

Ticks DmaScheduler::shed(size_t e, const DmaEngine& group) {
    // Lanes left step: each decides on its own from its next time. If the group split off, the
    // first lane's place is the group's; the others take theirs once the decision order is
    // consistent again (the group's place still holds the time and round it decided at).
    const size_t from = group.shed_from(), to = group.shed_to();
    for (size_t b = 0; b < blocks_.size(); ++b)
        if (blocks_[b].first == e) {
            note_split(blocks_[b], from == 0);
            splits_.push_back(Split{b, order_.time(e), order_.key(e) >> 32, std::max<size_t>(from, 1), to});
        }
    const auto& lanes = group.lanes();
    for (size_t k = from; k < to; ++k) deciding_[e + k] = lanes[k];
    return from == 0 ? lanes[0]->next() : group.next();
}

void DmaScheduler::arm(Ticks decision) {
    // The decision at t can be made once SystemC time passes t - lead_ (no later push reaches a
    // queue by t) and must be made by t: wake at t, the latest, to make the most of the window.
    const Ticks now = sc_core::sc_time_stamp().value();
    const Ticks at = std::max(now, lead_ > 0 ? decision : decision + 1);
    if (at == now)
        wake_.notify(sc_core::SC_ZERO_TIME);
    else
        wake_.notify(sc_core::sc_time::from_value(at - now));
}

void DmaScheduler::advance() {
    horizon_ = sc_core::sc_time_stamp().value() + lead_;
    for (;;) {
        const Ticks t = order_.first_time();
        if (t >= horizon_) {
            if (t != kNever) arm(t);
            return;
        }
        const size_t first = order_.first();
        for (Block& b : blocks_)
            if (b.first == first) rejoin_if_alike(b);
        order_.decide_run([this](size_t e) {
            DmaEngine& who = *deciding_[e];
            who.decide();
            return who.shed_to() > who.shed_from() ? shed(e, who) : who.next();
        });
        for (const Split& s : splits_) {
            const Block& b = blocks_[s.block];
            const auto& lanes = b.group->lanes();
            for (size_t k = s.from; k < s.to; ++k) {
                const Ticks next = lanes[k]->next();
                order_.place(b.first + k, next, next == s.time ? s.round + 1 : 0);
            }
        }
        splits_.clear();
    }
}

}  // namespace bnsim
