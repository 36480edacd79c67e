#pragma once
// What `bnsim trace` reports: the kernel's choices, instruction counts and HBM bytes, without
// simulating. The text and the JSON are both written from TraceReport.
//
// JSON: {"kernel", "config", "hardware", "lnc", the kernel's own fields (each at the top level,
//        as the kernel names them), "instructions": {total, by_engine, by_opcode, dma,
//        dma_by_dge, dependency_edges}, "hbm_bytes": {read, write}, "kernel_summary"}
#include <iosfwd>
#include <string>

#include <nlohmann/json.hpp>

#include "kernels/kernel_summary.h"
#include "kernels/kernel_target.h"
#include "sim/config/run_config.h"
#include "trace/trace.h"

namespace bnsim {

struct TraceReport {
    std::string kernel, config, hardware;
    int lnc = 1;
    TraceStats stats;  // instruction counts and HBM bytes
    // The kernel's own description of its choices (GeneratedKernel::info): an object only the
    // kernel reads (KernelEntry::print_trace_lines), copied into the JSON as it is.
    nlohmann::ordered_json kernel_fields = nlohmann::ordered_json::object();
    KernelSummary kernel_summary;
};

TraceReport trace_report(const RunConfig& cfg, const GeneratedKernel& k);
nlohmann::ordered_json to_json(const TraceReport& r);
void print_trace_report(const TraceReport& r, std::ostream& out);

}  // namespace bnsim
