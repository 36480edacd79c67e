#pragma once
// batch_norm_bwd's lines in the `bnsim run` and `bnsim trace` text reports (its memory config and
// sharding), read from the report's JSON, which carries the kernel's own `memory_config` and
// `sharding` objects. The generic reports print whatever lines the kernel's entry gives them.
#include <ostream>

#include <nlohmann/json.hpp>

namespace bnsim::bn {

void print_run_lines(const nlohmann::ordered_json& report, std::ostream& out);
void print_trace_lines(const nlohmann::ordered_json& report, std::ostream& out);

}  // namespace bnsim::bn
