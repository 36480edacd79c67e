#pragma once
// Contract between the driver and the timing models: schedule a trace, elaborate the SystemC
// NeuronCore (or LNC=2 pair) for it, run, and return per-instruction timings and unit stats.
// SystemC elaborates once per process: call simulate() at most once per process.
#include <map>
#include <string>
#include <vector>

#include "models/execution_observer.h"
#include "models/hw_config.h"
#include "sim/config/run_config.h"
#include "trace/trace.h"

namespace bnsim {

struct SimOptions {
    SchedulePolicy policy = SchedulePolicy::list;
    ExecutionObserverIF* observer = nullptr;  // numerics / hazard checking, optional
};

struct InstrTiming {
    double start_ns = 0;  // began executing (dependencies met, unit free)
    double end_ns = 0;    // results visible
    double ready_ns = 0;  // its stream position reached and its dependencies met
};

struct UnitStats {
    double busy_ns = 0;
    uint64_t instructions = 0;
};

struct SimResult {
    double kernel_ns = 0;   // first instruction start to last instruction end
    double latency_ns = 0;  // kernel_ns + the launch cost (comparable with neuron-bench)
    std::vector<InstrTiming> timing;  // indexed by instruction id
    std::map<std::string, UnitStats> units;  // "core0.act", "core0.dma.q3", "hbm", ...
    uint64_t hbm_bytes_read = 0, hbm_bytes_written = 0;
};

// Throws SimulationError (with the blocked instructions and what each waits on) on deadlock.
SimResult simulate(const HwConfig& hw, const Trace& trace, const SimOptions& opts);

}  // namespace bnsim
