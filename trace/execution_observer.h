#pragma once
// Hook through which the timing models tell others (the numerics executor, the hazard checker)
// when each instruction starts and finishes, in simulated time. Timing-only runs pass none.
#include "trace/instruction.h"

namespace bnsim {

class ExecutionObserverIF {
public:
    virtual ~ExecutionObserverIF() = default;
    // Called when the instruction begins executing (all its dependencies satisfied).
    virtual void on_start(const Instruction& ins, double t_ns) = 0;
    // Called when its results become visible (DMA: last byte written and completion signalled).
    virtual void on_finish(const Instruction& ins, double t_ns) = 0;
};

}  // namespace bnsim
