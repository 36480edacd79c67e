#pragma once
// The semaphores of the machine: which instructions have finished, how many unfinished
// dependencies each still has, and who to wake when they are met. One scoreboard serves every
// core (dependency edges never cross cores; sendrecv is a rendezvous in the Link).
// It also records each instruction's times and tells the execution observer, so observers see
// starts and finishes in simulated-time order.
#include <cstdint>
#include <limits>
#include <vector>

#include "trace/dependents.h"
#include "trace/execution_observer.h"
#include "trace/trace.h"

namespace bnsim {

// Something (an engine, a link) that can be woken when an instruction it waits on changes state.
class WakeIF {
public:
    virtual ~WakeIF() = default;
    virtual void wake() = 0;
};

struct ExecRecord {
    double head_ns = -1;      // reached the head of its engine's stream
    double ready_ns = -1;     // head reached and dependencies met (for a DMA: the trigger)
    double start_ns = -1;     // began executing (DMA: first descriptor moves data)
    double end_ns = -1;       // results visible (DMA: completion signalled)
    double deps_met_ns = -1;  // last dependency finished
    int64_t last_dep = -1;    // the dependency that finished last (what the instruction waited on)
    // DMA lifecycle
    double issue_start_ns = -1, issue_end_ns = -1;  // descriptor generation (DGE or software)
    double data_end_ns = -1;                        // last descriptor landed
    bool started() const { return start_ns >= 0; }
    bool finished() const { return end_ns >= 0; }
};

class Scoreboard {
public:
    // `dependents` is the trace's (trace/dependents.h); both must outlive the scoreboard.
    Scoreboard(const Trace& trace, const Dependents& dependents, ExecutionObserverIF* observer);

    const Trace& trace() const { return trace_; }
    bool deps_met(uint32_t id) const { return pending_[id] == 0; }
    uint32_t pending(uint32_t id) const { return pending_[id]; }
    // Wake `w` once every dependency of `id` has finished (immediately if already so).
    void wait_deps(uint32_t id, WakeIF* w);
    // Wake `w` when `id` itself finishes.
    void wait_finish(uint32_t id, WakeIF* w);

    void start(uint32_t id, double t_ns);
    void finish(uint32_t id, double t_ns);

    ExecRecord& record(uint32_t id) { return rec_[id]; }
    const ExecRecord& record(uint32_t id) const { return rec_[id]; }
    const std::vector<ExecRecord>& records() const { return rec_; }
    size_t finished_count() const { return finished_; }

private:
    const Trace& trace_;
    ExecutionObserverIF* observer_;
    const Dependents& dependents_;
    std::vector<uint32_t> pending_;
    std::vector<WakeIF*> dep_waiter_, finish_waiter_;
    std::vector<ExecRecord> rec_;
    size_t finished_ = 0;
};

}  // namespace bnsim
