#pragma once
// One DMA engine of a core: dma.queues_per_engine descriptor queues, in order within a queue,
// served round-robin across the ready non-empty queues, one descriptor at a time. Its timing is
// the DMA lifecycle's (models/dma_lifecycle.h): a descriptor takes the longer of its descriptor
// time and the HBM channels' service of its bytes; its data lands the landing latency later
// (pipelined: the engine starts the next descriptor meanwhile); a queue is not ready for a new
// DMA's first descriptor before the rule's next_dma_at of the previous DMA's first descriptor
// (the per-DMA occupancy M6's small-transfer throughput shows); meanwhile the engine serves the
// other queues.
//
// The engine is not a SystemC process of its own: the DmaScheduler (models/dma_scheduler.h)
// calls decide() at each of the engine's decision times, in time order across all engines, a
// window ahead of SystemC time (see there). A DMA's descriptors are pushed when it is triggered,
// as runs (models/dma_descriptor.h), with the SystemC time they reach the queue (its dispatch),
// and take part in decisions from then on; a decision takes one descriptor off a run.
//
// Lockstep groups. A [128, F] copy gives every engine of a core the same run (8 rows each, at
// addresses a fixed step apart), so the engines of a core usually hold the same DMAs in the same
// queues and decide alike at the same instants, one after another in engine order. A group is a
// DmaEngine standing for such lanes (consecutive engines of one core): it decides once for all
// of them (the queue scan, the queue bookkeeping) and reserves each lane's HBM channels in lane
// order, as the lanes deciding one by one would; while every lane's descriptor ends at the same
// time the lanes stay in step. When they do not (the HBM channels finish one lane later than
// another), the group splits: its lanes take its state, each with its own addresses and times,
// and decide on their own from then on. The scheduler joins them again when all are idle alike,
// or due at one decision holding alike runs (lanes_due_alike).
#include <algorithm>
#include <cstdint>
#include <cstddef>
#include <limits>
#include <vector>

#include "models/dma_descriptor.h"
#include "models/dma_lifecycle.h"
#include "models/hbm.h"
#include "models/sbuf.h"

namespace bnsim {

// SystemC time in its resolution's ticks (1 ps by default).
using Ticks = uint64_t;
constexpr Ticks kNever = std::numeric_limits<Ticks>::max();

// Told, run by run (models/dma_descriptor.h), when descriptors start moving and when their data
// will have landed: once per run rather than per descriptor, which is all a DMA's bookkeeping
// needs (its first start, its last landing, when its last descriptor has started).
class DescriptorSinkIF {
public:
    virtual ~DescriptorSinkIF() = default;
    // The first descriptor of a run of DMA `dma` started moving at start_ns.
    virtual void run_started(uint32_t dma, double start_ns) = 0;
    // The last of a run's `count` descriptors started moving; the run's data will all have
    // landed by landed_ns (the latest of its descriptors' landings).
    virtual void run_moved(uint32_t dma, uint32_t count, double landed_ns) = 0;
};

// Converts between model times (double ns) and SystemC ticks exactly as sc_time does, so a
// decision time computed here is the time a SystemC notification would have fired.
class TickClock {
public:
    TickClock();
    double ns(Ticks t) const { return double(t) / per_ns_; }
    // sc_time(d_ns, SC_NS).value(), for d_ns >= 0. Below 2^63 ticks through a signed conversion,
    // which truncates alike and is a single instruction.
    Ticks delay(double d_ns) const {
        const double ticks = d_ns * per_ns_ + 0.5;
        return d_ns == 0 ? 0 : ticks < 0x1p63 ? Ticks(int64_t(ticks)) : Ticks(ticks);
    }

private:
    double per_ns_;
};

class DmaEngine {
public:
    DmaEngine(const DmaLifecycle& rule, const TickClock& clock, Hbm& hbm, Sbuf& sbuf, DescriptorSinkIF& sink,
              size_t index);

    size_t index() const { return index_; }  // among the scheduler's engines
    // Queues a run of descriptors; it reaches its queue at `visible` (ticks).
    void push(const DmaRun& r, Ticks visible);

    // Makes this engine the lockstep group of `lanes` (engines of one core, in engine order, with
    // this engine's rule, HBM, SBUF and sink); it starts idle, as they must be.
    void make_group(std::vector<DmaEngine*> lanes);
    bool is_group() const { return is_group_; }
    const std::vector<DmaEngine*>& lanes() const { return lanes_; }
    // Queues a run on every lane: lane k's descriptors start at r.first.hbm_addr + k * lane_stride.
    void push_lanes(const DmaRun& r, uint64_t lane_stride, Ticks visible);
    // How many lanes the group decides for (the first ones); the others decide on their own.
    size_t lanes_in_group() const { return in_group_; }
    // The lanes the last decide() left to decide on their own ([from, to), empty if none): every
    // lane the group held when it split off, else those no longer in step with the first.
    size_t shed_from() const { return shed_from_; }
    size_t shed_to() const { return shed_to_; }
    // Hands the group's state to its lanes (before a DMA not alike on every lane is queued).
    void split();
    // Every lane idle, with queue histories that make no difference to decisions at settled_ns
    // or later: they would decide alike from there on.
    bool lanes_can_join(double settled_ns) const;
    // Takes the lanes' (idle, alike) state: decides for them again.
    void join();
    // Every lane the group does not hold due at the group's decision (or, holding none, at the
    // first lane's), holding the same runs (lane k's k lane strides further in HBM, each run its
    // own stride) in the same place, with queue histories alike from then on: the lanes deciding
    // one by one in lane order would decide as the group does. Lanes
    // split by HBM contention are often due together again after waiting out a queue's
    // occupancy or a DMA's arrival.
    bool lanes_due_alike() const;
    // Descriptors moved per lane in step since the group last took its lanes' state.
    uint64_t in_step_descriptors() const { return joined_descriptors_; }
    // Takes such lanes (their state, if it held none; each run's latest landing so far the
    // latest of the lanes'): decides for every lane again; the lanes taken are left empty.
    void rejoin();
    // The engine's next decision time (kNever: idle with nothing pushed).
    Ticks next() const { return next_; }
    // Makes the decision due at next(): starts a descriptor, or waits for a queue to be ready or
    // for a pushed descriptor to arrive.
    void decide();

    DmaEngine(const DmaEngine&) = delete;
    DmaEngine& operator=(const DmaEngine&) = delete;

    // Totals (while the engine is a lane of a joined group, the group keeps them).
    double busy_ns() const { return grouped() ? group_->lane_busy_ns_[lane_] : busy_ns_; }
    uint64_t descriptors() const {
        return grouped() ? group_->lane_descriptors_[lane_] + group_->joined_descriptors_ : descriptors_;
    }
    uint64_t bytes() const { return grouped() ? group_->lane_bytes_[lane_] + group_->joined_bytes_ : bytes_; }
    size_t queued() const { return queued_; }

private:
    // Every descriptor of a run is whole HBM stripes, or inside one granule, or starts at one
    // place in a granule and is neither (a row over some of the channels), or may vary.
    enum class HbmShape : uint8_t { any, stripes, one_granule, partial };
    struct Pending {
        DmaRun run;  // its first descriptor is the queue's next
        Ticks visible;
        uint32_t moved = 0;  // descriptors of the run started so far
        double landed = 0;   // the latest landing of those
        // What every descriptor of the run shares, worked out when it is pushed: its rows per
        // packet (the first row of each pays the descriptor overhead), its bytes' time, its
        // landing latency, and the shape of its HBM side.
        uint32_t packet_rows = 1;
        double row_data_ns = 0;  // each row's bytes at the engine's bandwidth
        double landing_ns = 0;
        HbmShape hbm_shape = HbmShape::any;
        uint64_t lane_stride = 0;  // a group's: HBM address step from one lane's run to the next
    };
    // A queue's runs: a vector consumed from a head index, so a queue that empties and refills
    // (as every queue does, DMA by DMA) reuses its storage instead of allocating deque nodes.
    class RunFifo {
    public:
        bool empty() const { return head_ == runs_.size(); }
        Pending& front() { return runs_[head_]; }
        const Pending& front() const { return runs_[head_]; }
        void pop_front() {
            if (++head_ == runs_.size()) {
                runs_.clear();
                head_ = 0;
            } else if (head_ >= 64 && 2 * head_ >= runs_.size()) {  // a queue that never empties
                runs_.erase(runs_.begin(), runs_.begin() + std::ptrdiff_t(head_));
                head_ = 0;
            }
        }
        // Inserts p after every run arriving no later (arrival order; dispatch order is trigger
        // order except when a later DMA skips the hardware DGE).
        void insert(const Pending& p) {
            size_t at = runs_.size();
            while (at > head_ && runs_[at - 1].visible > p.visible) --at;
            if (at == runs_.size())
                runs_.push_back(p);
            else
                runs_.insert(runs_.begin() + std::ptrdiff_t(at), p);
        }

        size_t size() const { return runs_.size() - head_; }
        Pending& operator[](size_t j) { return runs_[head_ + j]; }
        const Pending& operator[](size_t j) const { return runs_[head_ + j]; }

        // Becomes a copy of o's runs, each then passed to fix(Pending&).
        template <class Fix>
        void assign(const RunFifo& o, Fix&& fix) {
            runs_.assign(o.runs_.begin() + std::ptrdiff_t(o.head_), o.runs_.end());
            head_ = 0;
            for (Pending& p : runs_) fix(p);
        }
        void clear() {
            runs_.clear();
            head_ = 0;
        }

    private:
        std::vector<Pending> runs_;
        size_t head_ = 0;
    };
    struct QueueState {
        RunFifo descs;  // runs, ordered by arrival at the queue
        bool started = false;       // some DMA started on this queue
        uint32_t last_dma = 0;      // the DMA it started last
        double ready_at = 0;        // earliest start of a different DMA's first descriptor
    };
    bool ready(const QueueState& q, double now) const;
    // A decision's end: the descriptor taken off queue q (active_[i]) at t ends at `done`.
    void end_decision(Ticks t, double now, size_t q, size_t i, double done, uint32_t lanes);
    // The same for an engine on its own (or a lane), with its totals.
    void finish(Ticks t, double now, size_t q, size_t i, double done, uint32_t bytes);
    // A group's decision from its HBM reservations on: in step, or split.
    void decide_lanes(Ticks t, double now, size_t q, size_t i);
    // Each queue's history (whether it started a DMA, which one last, when it is ready for the
    // next) from `from`, which has as many queues; the runs queued stay as they are.
    void take_queue_histories(const DmaEngine& from);
    // `from`'s queue histories and what its next decision depends on but its runs: which queues
    // hold runs, their fronts' arrivals, the round-robin pointer, the next decision time.
    void take_decision_state(const DmaEngine& from);
    // Takes `group`'s state as lane k of it.
    void take_lane_state(const DmaEngine& group, size_t k);
    // The lanes' totals, taken when the group decides for them again.
    void take_lane_totals();
    // No runs queued, idle (a group whose lanes took its state, or a lane whose state its group took).
    void make_empty();
    // The HBM step from lane 0's j-th run on queue q to lane 1's (lanes holding alike runs).
    uint64_t derived_lane_stride(uint16_t q, size_t j) const;
    // Queue histories that make no difference to decisions at settled_ns or later.
    static bool histories_alike(const QueueState& a, const QueueState& b, double settled_ns);
    // The next decision time, and its time in ns, worked out now: the division is off the path
    // of the decision that needs it.
    void set_next(Ticks t) {
        next_ = t;
        next_ns_ = clock_.ns(t);
    }

    const DmaLifecycle& rule_;
    const TickClock& clock_;
    Hbm& hbm_;
    Sbuf& sbuf_;
    DescriptorSinkIF& sink_;
    size_t index_;
    std::vector<QueueState> queues_;
    std::vector<Ticks> front_;      // [queue]: arrival of its first descriptor, kNever if empty
    std::vector<uint16_t> active_;  // the queues holding descriptors, ascending (a kernel uses few)
    // Round-robin pointer: the queue after the last served (the queue count wraps to 0: a scan
    // from past the last busy queue starts at the first, as one from 0 does).
    size_t next_queue_ = 0;
    size_t next_active_ = 0;  // where in active_ the round-robin scan starts (lower bound of next_queue_)
    // After active_ changed: the scan's start from the round-robin pointer.
    void find_next_active() {
        next_active_ = size_t(std::lower_bound(active_.begin(), active_.end(), next_queue_) - active_.begin());
    }
    size_t queued_ = 0;
    bool busy_ = false;      // moving a descriptor until next_
    Ticks next_ = kNever;
    double next_ns_;
    double busy_ns_ = 0;
    uint64_t descriptors_ = 0, bytes_ = 0;

    // A group: its lanes, each lane's descriptor end in a decision, and the lanes' totals while
    // joined (one sweep adds a decision's time to all of them; descriptors and bytes, the same
    // for every lane, are counted once from the lanes' totals at the join).
    bool is_group_ = false;
    std::vector<DmaEngine*> lanes_;
    std::vector<double> lane_done_;
    std::vector<double> lane_busy_ns_;
    std::vector<uint64_t> lane_descriptors_, lane_bytes_;
    uint64_t joined_descriptors_ = 0, joined_bytes_ = 0;
    size_t in_group_ = 0;               // lanes [0, in_group_) are decided by the group
    size_t shed_from_ = 0, shed_to_ = 0;  // lanes the last decision left to decide on their own
    // A lane: its group and place in it.
    const DmaEngine* group_ = nullptr;
    size_t lane_ = 0;
    bool grouped() const { return group_ && lane_ < group_->in_group_; }
};

}  // namespace bnsim
