#pragma once
// Contract between the driver and the timing models: schedule a trace, elaborate the SystemC
// NeuronCore (or LNC=2 pair) for it, run, and return per-instruction timings and unit stats.
// SystemC elaborates once per process: call simulate() at most once per process.
#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "trace/execution_observer.h"
#include "models/cost_model.h"
#include "models/hw_config.h"
#include "sim/schedule/schedule_policy.h"
#include "trace/dependents.h"
#include "trace/engine_streams.h"
#include "trace/trace.h"

namespace bnsim {

struct SimOptions {
    SchedulePolicy policy = SchedulePolicy::list;
    ExecutionObserverIF* observer = nullptr;  // numerics / hazard checking, optional
    const Dependents* dependents = nullptr;     // the trace's, if the caller has them (else derived)
};

struct InstrTiming {
    double start_ns = 0;  // began executing (dependencies met, unit free)
    double end_ns = 0;    // results visible
    double ready_ns = 0;  // its stream position reached and its dependencies met
    // Beyond the contract's three times, for reports and the timeline:
    double head_ns = 0;         // reached the head of its engine's stream (ready_ns - head_ns = semaphore wait)
    int64_t waited_on = -1;     // the dependency that finished last, if it made the instruction wait
    double issue_start_ns = 0;  // DMA: descriptor generation (hardware DGE or software on Pool)
    double issue_end_ns = 0;
    double data_end_ns = 0;     // DMA: last descriptor landed (end_ns adds the completion latency)
};

struct UnitStats {
    double busy_ns = 0;
    uint64_t instructions = 0;  // DMA engines: descriptors; queues: DMAs; the link: exchanges
};

// One NeuronCore's units. Queues are kept only where a DMA ran (the report lists those).
struct CoreUnitStats {
    std::array<UnitStats, kNumEngines> engines{};  // indexed by Engine
    std::vector<UnitStats> dma_engines;            // indexed by DMA engine
    std::map<int, UnitStats> dma_queues;           // by queue number, queues that ran a DMA
    UnitStats dge;                                 // hardware descriptor generation (busy only)
};

struct UnitStatsAll {
    std::vector<CoreUnitStats> cores;  // indexed by core
    UnitStats hbm;                     // busy only
    std::optional<UnitStats> link;     // an LNC=2 pair's inter-core link
};

struct SimResult {
    double kernel_ns = 0;   // first instruction start to last instruction end
    double latency_ns = 0;  // kernel_ns + the launch cost (comparable with neuron-bench)
    std::vector<InstrTiming> timing;  // indexed by instruction id
    UnitStatsAll units;
    uint64_t hbm_bytes_read = 0, hbm_bytes_written = 0;
    std::string policy;  // scheduling policy used
    std::vector<std::vector<std::vector<uint32_t>>> streams;  // [core][engine] scheduled order
    std::vector<uint64_t> sbuf_peak_bytes;                     // per core, highest SBUF byte used
};

// A trace that cannot finish (deadlock, a sendrecv without its peer): the message names every
// blocked instruction and what it waits on.
struct SimulationError : std::runtime_error {
    explicit SimulationError(const std::string& m) : std::runtime_error(m) {}
};

// Whether simulate() has run in this process. Each simulation after the first builds its modules
// in a fresh SystemC context, so a process (or a child forked from it) may simulate again.
bool simulated_in_this_process();

// Throws SimulationError (with the blocked instructions and what each waits on) on deadlock.
SimResult simulate(const HwConfig& hw, const Trace& trace, const SimOptions& opts);

// The list scheduler's own timeline as a SimResult (`bnsim run --estimate`): no SystemC run, so
// any number of calls per process. Trains go back to back on idealised DMA engines (no HBM
// contention) and sendrecv is its trigger plus the transfer (no rendezvous).
SimResult estimate(const HwConfig& hw, const Trace& trace);

// The estimate's latency alone, what the decision commands rank thousands of (config, hardware)
// pairs by: estimate(hw, trace).latency_ns without the statistics of a report, from the trace's
// dependents built once by the caller (the same for every hardware). With stop_above, a ranking
// that only needs the configs beating a latency already found: +infinity as soon as the
// estimate is sure to be above stop_above, else the estimate.
// `rows`: the trace's cost rows, made once for a table with the same keys (models/cost_model.h).
double estimate_latency_ns(const HwConfig& hw, const Trace& trace, const Dependents& dependents,
                           double stop_above = std::numeric_limits<double>::infinity(),
                           const CostRows* rows = nullptr);

// A lower bound of that estimate, at the cost of pricing each instruction once (no schedule, no
// dependencies: the trace's may be still to derive). `streams` are the trace's engine streams in
// program order (schedule_program_order(trace).cores: the same under every hardware, so a caller
// bounding one trace under many makes them once). The list scheduler runs each engine's
// instructions one after another, each for at least its cost-model time (an ACT table switch
// only adds to it), and every instruction's result comes no sooner than its engine is done with
// it (all latencies are >= 0), so the estimate is at least the busiest engine's summed time plus
// the launch. That holds for every trace whose dependencies point to earlier instructions, as
// derived ones and trace images' always do (a hand-made edge to a later instruction could close
// a cycle, which the list scheduler leaves unscheduled). Once the bound passes stop_above it
// stops adding and returns what it has (still a bound). -infinity for a negative cost.
double estimate_lower_bound_ns(const HwConfig& hw, const Trace& trace, const std::vector<CoreStreams>& streams,
                               double stop_above = std::numeric_limits<double>::infinity(),
                               const CostRows* rows = nullptr);

// Adds each DMA queue's busy time (the union of its DMAs' [start, data end]) and DMA count to
// res.units (cores already sized) from res.timing (simulate() and estimate()).
void add_dma_queue_units(const Trace& trace, SimResult& res);

}  // namespace bnsim
