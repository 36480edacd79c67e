#pragma once
// Answers from a sweep's records, per context (the parameters that are not the kernel's
// decisions, e.g. a shape): the best config, its latency, its speedup over the kernel's own
// choice, what each on/off decision (e.g. direct_x residency) saves, and which unit binds.
// Built once as a SweepSummary; printed on the terminal, written as summary.json and shown in
// report.html from its fields.
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <utility>
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

using StatusCounts = std::vector<std::pair<std::string, int>>;  // status -> points, first seen first

// A config the summary names: the best, or the kernel's own choice.
struct SweepChoice {
    std::string id;
    PointParams params;
    std::vector<std::pair<std::string, std::string>> choice;  // decision key -> value, the kernel's order
    double latency_ns = 0;
    std::string binding;  // the whole kernel's binding unit
};

// What an on/off decision is worth: the best point with it on against the best with it off
// (saves_ns, as tune and sensitivity say "saves"), and flipping it at the best config alone.
struct OnOffDecision {
    std::string key;
    bool at_best = false;
    std::optional<double> flipped_latency_ns, flip_costs_ns;
    std::optional<double> best_on_ns, best_off_ns, saves_ns;
};

struct ContextSummary {
    PointParams context;
    std::string label;
    size_t points = 0;
    StatusCounts by_status;
    std::optional<SweepChoice> best;
    std::optional<SweepChoice> own;         // the kernel's own choice ("auto"), when it ran
    std::optional<std::string> own_error;   // why it did not
    std::optional<double> speedup_over_own;  // own latency / best latency
    std::vector<OnOffDecision> on_off_decisions;  // when there is a best
};

struct SweepSummary {
    std::string sweep, base, kernel;
    size_t points = 0, done = 0;
    StatusCounts by_status;
    nlohmann::ordered_json provenance;  // the sweep's, or null
    std::vector<ContextSummary> contexts;
};

SweepSummary sweep_summary(const nlohmann::ordered_json& meta, const Records& records);
nlohmann::ordered_json to_json(const SweepSummary& s);  // summary.json
void print_sweep_summary(const SweepSummary& s, std::ostream& out);

}  // namespace bnsim
