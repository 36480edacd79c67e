#pragma once
// Ways to drive an ExecutionObserverIF over a trace without the timing simulation:
//   - run_sequential: each core's program in program order, one instruction at a time (start
//     then finish); a sendrecv waits for its peer's matching sendrecv and the pair runs together.
//     A correct trace must compute the right answer this way, whatever its dependencies say.
//   - run_dataflow: every instruction starts as soon as the dependencies the trace records are
//     met (no engine or queue limits, durations proportional to bytes moved), so a missing edge
//     shows up as a race the way an aggressive scheduler would expose it.
// Plus a fan-out observer that forwards to several observers in order.
#include <vector>

#include "trace/execution_observer.h"
#include "trace/trace.h"

namespace bnsim::num {

void run_sequential(const Trace& trace, ExecutionObserverIF& obs);
void run_dataflow(const Trace& trace, ExecutionObserverIF& obs);

// For a sendrecv, the id of the peer core's matching sendrecv (same pipe, same occurrence);
// -1 if there is none. Index built once per trace.
std::vector<int64_t> match_sendrecvs(const Trace& trace);

class ObserverFanout : public ExecutionObserverIF {
public:
    void add(ExecutionObserverIF* o) { obs_.push_back(o); }
    void on_start(const Instruction& ins, double t) override {
        for (auto* o : obs_) o->on_start(ins, t);
    }
    void on_finish(const Instruction& ins, double t) override {
        for (auto* o : obs_) o->on_finish(ins, t);
    }

private:
    std::vector<ExecutionObserverIF*> obs_;
};

}  // namespace bnsim::num
