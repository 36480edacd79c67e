#pragma once
// The one way the applications simulate many points (tune, sensitivity, the uncertainty bands,
// compare, fit, calibrate): `jobs` worker processes forked from this already loaded process (no
// exec, no start-up), each running points one after another, each point with a timeout and
// crash isolation (sim/runner/worker_pool.h). A worker loads the run config, traces, simulates
// (or estimates) in a fresh SystemC context and sends back the run report or one calibration
// metric; the parent gets one outcome per request, in request order. The parent may have
// simulated itself (bnsim run --uncertainty).
//
// Call it from one thread only (forking a process whose other threads hold locks is unsafe).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/config/run_config.h"
#include "sim/report/run_report.h"

namespace bnsim {

struct SimRequest {
    std::string config;
    Overrides sets;
    // latency: the run report's latency_ns alone (no report is built), as a metric's value.
    enum class Want { report, estimate_report, metric, latency } want = Want::report;
    std::string metric;  // Want::metric: a calibration metric's name (sim/simulate/run_metrics.h)
};

struct SimOutcome {
    bool ok = false;
    std::string error;    // one line: the config's or the kernel's refusal, a deadlock, a crash, a timeout
    RunReport report;       // report / estimate_report
    double value = 0;       // metric: its value; latency: the latency in ns
};

std::vector<SimOutcome> run_simulations(const std::vector<SimRequest>& requests, int jobs, double timeout_s);

// Opens the folder in which this command's children share the traces an outside frontend makes
// (kernels/trace_cache.h), if none is open: run_simulations does it at its first batch; a
// command that traces its own kernel before starting children (run --uncertainty) calls it
// first, so its trace is shared too. Removed when this process exits.
void share_traces_with_children();

// One request's outcome, computed in this process (what a child runs). Never throws.
SimOutcome run_simulation_here(const SimRequest& request);

}  // namespace bnsim
