#pragma once
// The order a runner reports an execution in, recorded once and replayed: a streamed validation
// walks it first to estimate the memory it will hold (HbmPages without data), then executes it,
// so the estimate follows the very order the run takes (the timing simulation runs once).
#include <cstdint>
#include <vector>

#include "numerics/validation.h"

namespace bnsim::num {

struct ExecutionEvent {
    uint32_t id = 0;
    bool start = false;  // on_start, else on_finish
    double t_ns = 0;
};
using ExecutionOrder = std::vector<ExecutionEvent>;

// Runs the trace through the runner, recording what it reports.
ExecutionOrder record_order(const Trace& trace, const Runner& run);
// A runner that reports the recorded events (for the trace they were recorded on).
Runner replay(const ExecutionOrder& order);

}  // namespace bnsim::num
