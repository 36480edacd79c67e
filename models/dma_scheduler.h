#pragma once
// The DMA engines of every core on one HBM stack, advanced together. An engine's decisions (which
// queue's descriptor to start next, models/dma_engine.h) depend only on what has reached its
// queues, and a DMA reaches its queues dma.dispatch_ns or more after it is triggered; so at
// SystemC time `now` every descriptor that reaches a queue before now + dma.dispatch_ns has
// already been pushed. The scheduler's one SC_METHOD therefore makes all the engines' decisions
// due before that horizon in one activation, in time order (ties by engine), and sleeps until
// the time of the next decision (which it then makes with the dispatch window after it): one
// activation per dispatch window rather than one per descriptor, with the same decisions and
// the same time-ordered HBM reservations as an engine stepping through its descriptors one
// SystemC event at a time. Decisions are never made after their own time, so what they
// schedule (a DMA's start and finish records) is still in SystemC's future.
//
// A core's engines are added as one block of lanes, decided by a lockstep group
// (models/dma_engine.h) while every DMA queued on them gives each lane the same run; a DMA that
// does not, or lanes whose descriptors end at different times, split the block into its engines,
// which the scheduler joins again when a DMA alike on every lane finds them all idle alike, or
// when they are all due at one decision with alike runs (after waiting out a queue's occupancy
// or a DMA's arrival together: lanes split by HBM contention mostly are). The
// group decides at its first lane's place in the decision order (the other lanes' places are
// empty meanwhile), where the lanes deciding one by one would have decided in engine order.
#include <memory>
#include <vector>

#include <systemc>

#include "models/decision_order.h"
#include "models/dma_engine.h"
#include "models/hbm.h"

namespace bnsim {

class DmaScheduler : public sc_core::sc_module {
public:
    SC_HAS_PROCESS(DmaScheduler);
    DmaScheduler(sc_core::sc_module_name name, const HwConfig& hw, Hbm& hbm);

    // A new engine served by the shared HBM, on its own; the scheduler owns it.
    DmaEngine& add_engine(const DmaLifecycle& rule, Sbuf& sbuf, DescriptorSinkIF& sink);
    // `count` new engines of one core (its engines 0..count-1), decided in lockstep while they
    // can be; returns the block's number for push_dma. The scheduler owns them.
    size_t add_block(size_t count, const DmaLifecycle& rule, Sbuf& sbuf, DescriptorSinkIF& sink);
    // The block's engines, in engine order.
    const std::vector<DmaEngine*>& block_engines(size_t block) const { return blocks_[block].group->lanes(); }
    // Queues a run of descriptors on `engine`, reaching its queue at reach_ns (>= now + dma.dispatch_ns).
    void push(DmaEngine& engine, const DmaRun& r, double reach_ns);
    // One descriptor: a run of one.
    void push(DmaEngine& engine, const DmaDescriptor& d, double reach_ns) { push(engine, DmaRun{d, 1, 0}, reach_ns); }
    // Queues one DMA's runs on a block (run.first.engine: the engine in the block), all reaching
    // their queues at reach_ns (>= now + dma.dispatch_ns).
    void push_dma(size_t block, const DmaRun* runs, size_t count, double reach_ns);
    // The same for a DMA alike on every engine of the block (dma_runs_alike): engine k's run is
    // `first` at k * lane_stride further in HBM.
    void push_alike(size_t block, const DmaRun& first, uint64_t lane_stride, double reach_ns);
    // How often a block split into its engines, and joined again (for tests).
    size_t splits() const { return splits_count_; }
    size_t joins() const { return joins_count_; }
    // How many of those joins took lanes due alike (not idle): DmaEngine::lanes_due_alike.
    size_t due_joins() const { return due_joins_count_; }
    // Takes every chance to rejoin lanes due alike, however soon they split again (for tests:
    // the most rejoins; decisions are the same either way).
    void rejoin_eagerly() { eager_ = true; }

private:
    struct Block {
        size_t first = 0;                  // the first engine's place in the decision order
        std::unique_ptr<DmaEngine> group;  // decides for the engines while grouped
        bool grouped = true;
        // Rejoining costs a comparison and a copy of every lane's runs, and a group that splits
        // again at once saves nothing (HBM contention may split it at every row): after such a
        // group, the next `skip` chances to rejoin pass, twice as many each time it happens
        // again. Which chances are taken changes only the time simulating, never a decision.
        uint32_t backoff = 0, skip = 0;
    };
    // Lanes in step for fewer descriptors than this before they split make their next rejoin wait.
    static constexpr uint64_t kWorthRejoining = 32;
    static constexpr uint32_t kMaxBackoff = 1024;
    // The block's group just split (`whole`: into all its lanes), or left some lanes to decide
    // on their own: its rejoin backoff from how long its lanes stayed in step.
    void note_split(Block& b, bool whole);
    // A group split while deciding at (time, round): its lanes past the first take their places.
    struct Split {
        size_t block;
        Ticks time;
        uint64_t round;
        size_t from, to;  // the lanes to place
    };
    void advance();
    void arm(Ticks decision);
    Ticks reach_ticks(uint32_t dma, double reach_ns) const;
    // Engine (or group) `who` at place e has a new next decision time.
    void moved(size_t e, const DmaEngine& who);
    void split_block(Block& b);
    // The split block's lanes, the first of them next to decide, are due alike (DmaEngine::
    // lanes_due_alike): the group decides for them again, at the first lane's place.
    void rejoin_if_alike(Block& b);
    void push_alike(Block& b, const DmaRun& first, uint64_t lane_stride, Ticks reach);
    // The group at place e left lanes to decide on their own while deciding (DmaEngine::shed_from):
    // they decide from now on. The next time at place e: the group's, or if it split off, the first lane's.
    Ticks shed(size_t e, const DmaEngine& group);
    // r's runs on the block's lanes alike but for their addresses, a fixed step apart (*stride).
    static bool alike_on_every_lane(const DmaRun* runs, size_t count, size_t lanes, uint64_t* stride);

    TickClock clock_;
    Ticks lead_;         // no descriptor pushed at now reaches its queue before now + lead_
    Ticks horizon_ = 0;  // decisions before this have been made
    Hbm& hbm_;
    std::vector<std::unique_ptr<DmaEngine>> engines_;
    std::vector<Block> blocks_;
    std::vector<DmaEngine*> deciding_;  // [place in the order]: the engine or group deciding there
    std::vector<Split> splits_;
    size_t splits_count_ = 0, joins_count_ = 0, due_joins_count_ = 0;
    bool eager_ = false;
    DecisionOrder order_;  // the engines' next decisions, mirrored in decision order
    sc_core::sc_event wake_;
};

}  // namespace bnsim
