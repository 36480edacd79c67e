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
#include <limits>
#include <vector>

#include "models/cost_model.h"
#include "models/dma_lifecycle.h"
#include "sim/schedule/schedule_policy.h"
#include "trace/dependents.h"
#include "trace/engine_streams.h"
#include "trace/trace.h"

namespace bnsim {

struct Schedule {
    std::vector<CoreStreams> cores;  // [core][engine] -> instruction ids in execution order
    // The list scheduler's own estimate of each instruction's start and result time (ns); empty
    // for program_order and for ScheduleDetail::streams. Diagnostics only: the SystemC models
    // decide the real times.
    std::vector<double> est_start, est_end;
    // The rest of its timeline, for `bnsim run --estimate` (list only): when each instruction
    // reached the head of its stream (its engine's previous instruction ended), the dependency
    // whose result came last if the instruction waited for it, each DMA's lifecycle times, and per
    // core the DMA engines' busy time and descriptors and the DGE units' busy time.
    std::vector<double> est_head;
    // How long each instruction occupied its engine's stream (its cost-model time with the
    // engine's state as the scheduler walked the stream), so the estimate's busy times need not
    // price every instruction a second time.
    std::vector<double> est_occupy;
    std::vector<int64_t> est_waited_on;
    std::vector<DmaTimes> est_dma;
    struct DmaUnits {
        std::vector<double> engine_busy_ns;
        std::vector<uint64_t> engine_descriptors;
        double dge_busy_ns = 0;
    };
    std::vector<DmaUnits> est_dma_units;
    bool stuck = false;  // the dependency graph had a cycle; the rest was appended in source order
    // est_end_ns passed the caller's stop_above, so the pass stopped there: the streams and
    // timeline are partial, and the whole pass's est_end_ns would be at least this one (it
    // only grows as instructions are scheduled).
    bool stopped = false;
    double est_end_ns = 0;  // list only: the latest est_end, kept at every detail level
};

// What schedule_list fills: the engine streams only (what a simulation needs), or also its
// est_* timeline (`run --estimate`). A simulation skips the timeline: at C=1024 it is 4 MB written
// per run that nothing reads.
enum class ScheduleDetail { streams, timeline };

Schedule schedule_program_order(const Trace& trace);
Schedule schedule_list(const Trace& trace, const CostModel& cost, ScheduleDetail detail = ScheduleDetail::timeline);
// The same, with the trace's dependents built by the caller (a simulation shares them with its
// scoreboard). A ranking that only needs to know whether the estimate beats a latency already
// found passes stop_above: the pass stops (Schedule::stopped) once est_end_ns exceeds it.
Schedule schedule_list(const Trace& trace, const Dependents& dependents, const CostModel& cost, ScheduleDetail detail,
                       double stop_above = std::numeric_limits<double>::infinity());
// The engine streams of a policy (no est_* timeline).
Schedule make_schedule(const Trace& trace, const Dependents& dependents, const CostModel& cost, SchedulePolicy policy);
const char* schedule_policy_name(SchedulePolicy p);

}  // namespace bnsim
