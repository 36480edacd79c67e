#pragma once
// What `bnsim run` reports: predicted latency, phases and which unit bounds each, per-engine and
// per-DMA-queue busy time, HBM traffic, and the lower bounds the latency is checked against.
// Everything derives from the trace, the hardware config and the simulation result, so the
// same config gives byte-identical JSON.
#include <iosfwd>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "kernels/kernel_target.h"
#include "sim/config/run_config.h"
#include "sim/simulate.h"

namespace bnsim {

nlohmann::ordered_json run_report_json(const RunConfig& cfg, const GeneratedKernel& k, const SimResult& r);

// The part of the report that depends on the trace and the hardware only, not on the run's
// timing (each instruction's engine time, the lower bounds, the DMA queues' roles): `bnsim run`
// computes it on a second thread while the run simulates and hands it to run_report_json.
struct TraceFigures;
std::shared_ptr<const TraceFigures> trace_figures(const HwConfig& hw, const Trace& trace);
nlohmann::ordered_json run_report_json(const RunConfig& cfg, const GeneratedKernel& k, const SimResult& r,
                                       const TraceFigures& figures);
// Each phase's binding unit of a `bnsim run --json` report, "phase 1 dve, phase 2 dma".
std::string phase_bindings(const nlohmann::json& report);

// The report with "mode": "estimate" after "schedule", so readers cannot take it for a simulation
// (`bnsim run --estimate`).
nlohmann::ordered_json mark_estimate_report(const nlohmann::ordered_json& report);

void print_run_report(const nlohmann::ordered_json& report, std::ostream& out);

}  // namespace bnsim
