#pragma once
// Answers from a sweep's records, per context (the parameters that are not the kernel's
// decisions, e.g. a shape): the best config, its latency, its speedup over the kernel's own
// choice, what each on/off decision (e.g. direct_x residency) saves at the best config, and
// which unit binds. Printed on the terminal and written as summary.json.
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/sweep/results_dir.h"

namespace bnsim {

// A record's decision values as the kernel resolved them (its summary), falling back to the
// parameters: axis key -> value text ("4096", "true").
std::map<std::string, std::string> decision_values(const SweepRecord& record, const SweepKernel& k);

// The records of each context, contexts in the sweep's order.
struct ContextGroup {
    PointParams context;
    std::string label;
    std::vector<const SweepRecord*> records;  // sorted by id
    const SweepRecord* auto_record = nullptr;
};
std::vector<ContextGroup> group_by_context(const nlohmann::ordered_json& meta, const Records& records);

nlohmann::ordered_json sweep_summary(const nlohmann::ordered_json& meta, const Records& records);
void print_sweep_summary(const nlohmann::ordered_json& summary, std::ostream& out);

}  // namespace bnsim
