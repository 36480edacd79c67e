#pragma once
// What `bnsim run` reports: predicted latency, phases and which unit bounds each, per-engine and
// per-DMA-queue busy time, HBM traffic, and the lower bounds the latency is checked against.
// Everything derives from the trace, the hardware config and the simulation result, so the
// same config gives byte-identical JSON. The README ("Reading a run report") explains the fields.
#include <array>
#include <cstdint>
#include <iosfwd>
#include <cmath>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernels/kernel_summary.h"
#include "kernels/kernel_target.h"
#include "sim/config/run_config.h"
#include "sim/simulate/simulate.h"

namespace bnsim {

// A unit's lower bound on a span: the busy time each unit would need for its instructions.
struct BoundTimes {
    double hbm_ns = 0, dma_ns = 0, dma_plateau_ns = 0, dge_ns = 0;
    std::array<double, kNumEngines> engine_ns{};  // indexed by Engine
};

// Which bound binds ("dve", "dma", "dge", "hbm", ...), and by how much over the largest bound of
// the other kind (engines against data movement).
struct Binding {
    std::string unit;
    double bound_ns = 0;
    std::string versus;
    double versus_ns = 0;
    double ratio = 0;                // bound_ns / versus_ns
    double duration_over_bound = 0;  // the span's time / bound_ns
    std::string summary;             // "DVE-bound, 1.8x over its DMA time; runs at 1.06x that bound"
};

// A phase over its window (sim/report/phase_window.h: from when it leads to its last
// instruction's end; first_start_ns is when its earliest instruction began, under an earlier
// phase). Its binding is judged on that window.
struct PhaseReport {
    std::string name;  // "setup", "phase 1", ...
    double start_ns = 0, end_ns = 0, duration_ns = 0, first_start_ns = 0;
    BoundTimes bounds;
    Binding binding;
    bool dma_fixed_cost_dominates = false;
    std::string dma_note;  // why, when it does
};

struct EngineCoreFigures {
    double busy_ns = 0;
    uint64_t instructions = 0;
    double estimated_busy_ns = 0;
};

// An engine's figures: busy time and its share priced by estimates are the busiest core's;
// instructions and semaphore waits are summed over the cores (per core in `cores` at LNC=2).
struct EngineReport {
    Engine engine = Engine::Sync;
    double busy_ns = 0, utilization = 0;
    uint64_t instructions = 0;
    double semaphore_wait_ns = 0, estimated_busy_ns = 0, estimated_share = 0;
    std::vector<EngineCoreFigures> cores;  // LNC=2 only
};

struct DmaQueueReport {
    int core = 0, queue = 0;
    std::string roles;  // the tags of its DMAs, "load dy, load x"
    uint64_t dmas = 0;
    double busy_ns = 0, utilization = 0;
};

// An NKI kernel's (or trace file's) source line and the summed duration of its instructions.
struct SourceLineReport {
    std::string source;
    uint64_t instructions = 0;
    std::string engines;  // "act,dve"
    double duration_ns = 0;
};

struct DmaEnginesReport {
    int engines = 0;
    double engine_busy_ns_avg = 0, engine_utilization = 0, dge_busy_ns = 0;
};

struct HbmReport {
    uint64_t bytes_read = 0, bytes_written = 0;
    double achieved_gbps = 0, peak_gbps = 0, utilization = 0;
};

struct SbufReport {
    uint64_t capacity_bytes_per_partition = 0;
    std::vector<uint64_t> peak_bytes_per_partition;  // per core
};

struct LinkReport {
    uint64_t transfers = 0;
    double busy_ns = 0;
};

// What `bnsim run` reports, built once from the simulation; its JSON (to_json) and text
// (print_run_report) are printed from it, and run_report_from_json reads the JSON back.
struct RunReport {
    std::string kernel, config, hardware;
    int lnc = 1;
    std::string schedule;
    bool estimate = false;  // the list scheduler's timeline (`--estimate`), not a simulation
    // The kernel's own fields (KernelEntry::add_run_fields), an object the kernel reads itself.
    nlohmann::ordered_json kernel_fields = nlohmann::ordered_json::object();
    double latency_ns = 0, kernel_ns = 0, launch_ns = 0;
    uint64_t instructions = 0;
    std::vector<PhaseReport> phases;
    std::vector<EngineReport> engines;  // the engines that ran an instruction
    std::vector<DmaQueueReport> dma_queues;
    std::vector<SourceLineReport> source_lines;  // by duration, longest first
    DmaEnginesReport dma;
    HbmReport hbm;
    SbufReport sbuf;
    std::optional<LinkReport> link;  // LNC=2
    BoundTimes bounds;               // the whole kernel's
    Binding binding;                 // the whole kernel's
    bool dma_fixed_cost_dominates = false;
    std::vector<std::string> notes;
    KernelSummary kernel_summary;
};

// The part of the report that depends on the trace and the hardware only, not on the run's
// timing (each instruction's engine time, the lower bounds, the DMA queues' roles): `bnsim run`
// computes it on a second thread while the run simulates and hands it to build_run_report.
struct TraceFigures;
std::shared_ptr<const TraceFigures> trace_figures(const HwConfig& hw, const Trace& trace);

RunReport build_run_report(const RunConfig& cfg, const GeneratedKernel& k, const SimResult& r);
// A time as the report gives it: rounded to 1 ps, so reports do not carry floating-point noise.
inline double report_ns(double ns) { return std::round(ns * 1000.0) / 1000.0; }
RunReport build_run_report(const RunConfig& cfg, const GeneratedKernel& k, const SimResult& r,
                           const TraceFigures& figures);

// `bnsim run --json`'s object (without provenance and uncertainty, which the command adds).
nlohmann::ordered_json to_json(const RunReport& r);
// A report read back that is not one: names the field missing or of the wrong type.
struct RunReportError : std::runtime_error {
    using std::runtime_error::runtime_error;
};
// Reads that object back (a child's report, a sweep's results file). Throws RunReportError
// naming the field ("run report: PATHphases[].binding.unit: expected a string"), with `path`
// naming where the report sits in its file ("run.").
RunReport run_report_from_json(const nlohmann::ordered_json& j, const std::string& path = "");

// Each phase's binding unit, "phase 1 dve, phase 2 dma".
std::string phase_bindings(const RunReport& r);

void print_run_report(const RunReport& r, std::ostream& out);

}  // namespace bnsim
