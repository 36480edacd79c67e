#pragma once
// The scheduling pass: turns a trace (program order, derived dependencies) into the per-engine
// instruction streams each core's engines execute in order — what the NKI compiler's
// instruction scheduler does before the hardware runs.
//
// Policies (run config `schedule:`):
//  - program_order: each engine's instructions in source order. Kept for comparison: with
//    every DMA triggered from Sync, the direct_x store of tile i sits ahead of tile i+1's loads
//    in Sync's stream and waits for tile i's compute, so multibuffering cannot overlap anything.
//  - list (default): a list scheduler over the dependency graph, see list_scheduler.cpp.
#include <vector>

#include "models/cost_model.h"
#include "models/neuron_core.h"
#include "sim/config/run_config.h"
#include "trace/trace.h"

namespace bnsim {

struct Schedule {
    std::vector<CoreStreams> cores;  // [core][engine] -> instruction ids in execution order
    // The list scheduler's own estimate of each instruction's start and result time (ns); empty
    // for program_order. Diagnostics only: the SystemC models decide the real times.
    std::vector<double> est_start, est_end;
    bool stuck = false;  // the dependency graph had a cycle; the rest was appended in source order
};

Schedule schedule_program_order(const Trace& trace);
Schedule schedule_list(const Trace& trace, const CostModel& cost);
Schedule make_schedule(const Trace& trace, const CostModel& cost, SchedulePolicy policy);
const char* schedule_policy_name(SchedulePolicy p);

}  // namespace bnsim
