#pragma once
// batch_norm_bwd's part of the `bnsim run` and `bnsim trace` reports: its memory config and
// sharding, as fields of the run report's JSON and as lines of both text reports (read back from
// that JSON). The generic reports add and print whatever the kernel's entry gives them.
#include <ostream>

#include <nlohmann/json.hpp>

#include "kernels/kernel_target.h"

namespace bnsim::bn {

// `memory_config` and `sharding.mode` from the generated kernel's info.
void add_run_fields(const GeneratedKernel& k, nlohmann::ordered_json& report);

void print_run_lines(const nlohmann::ordered_json& report, std::ostream& out);
void print_trace_lines(const nlohmann::ordered_json& report, std::ostream& out);

}  // namespace bnsim::bn
