#pragma once
// What `bnsim trace` reports: the kernel's choices, instruction counts and HBM/SBUF bytes.
#include <iosfwd>

#include <nlohmann/json.hpp>

#include "kernels/kernel_target.h"
#include "sim/config/run_config.h"

namespace bnsim {

nlohmann::ordered_json trace_report_json(const RunConfig& cfg, const GeneratedKernel& k);
void print_trace_report(const nlohmann::ordered_json& report, std::ostream& out);

}  // namespace bnsim
