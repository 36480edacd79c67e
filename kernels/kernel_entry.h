#pragma once
// A kernel is one registration: this entry, defined in the kernel's own folder, is everything the
// generic layers (sim/, reports, sweeps) know about it. They hold the kernel's params opaquely
// (std::any) and hand them back to the entry's functions.
#include <any>
#include <functional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernels/kernel_summary.h"
#include "kernels/kernel_target.h"

namespace bnsim {

class ConfigNode;
struct KernelNumerics;

// A choice the kernel makes for itself unless the run config fixes it: a dotted run-config key
// (e.g. "memory.f_tile") and its kind ("integer" | "boolean"), so sweeps can vary it, and the
// values an explicit grid of the decisions tries by default (bnsim sensitivity ranks the
// kernel's own choice against that grid).
struct DecisionAxis {
    std::string key;
    std::string kind;
    std::vector<std::string> values;
};

// "--set key=value" pairs.
using Overrides = std::vector<std::pair<std::string, std::string>>;

struct KernelEntry {
    std::string name;         // `kernel:` in a run config
    std::string description;  // one line

    // Reads the kernel's keys from the run config (the kernel's section; batch_norm_bwd's keys
    // sit at the top level) into its own params. Throws ConfigError naming file, line and key.
    std::function<std::any(ConfigNode& top, const KernelTarget& target)> parse;
    // The kernel's trace for those params on that target. Throws KernelError for inputs the
    // kernel refuses.
    std::function<GeneratedKernel(const std::any& params, const KernelTarget& target)> generate;
    // The same kernel as this process keeps it in memory, shared rather than copied, for a
    // kernel that keeps what it made (the NKI frontend's: W2's trace is megabytes); unset:
    // generate()'s.
    std::function<std::shared_ptr<const GeneratedKernel>(const std::any& params, const KernelTarget& target)> kept;
    // generate() reads nothing but its params and target (no file), so a process may keep the
    // kernel it made and hand it out again for the same run config and target.
    bool made_from_params_alone = true;
    // For a kernel that traces through an outside program (the NKI frontend): if this command
    // has traced these params on this target before (kernels/trace_cache.h's trace files), makes
    // the kernel from that trace and keeps it in memory, so that generate() in this process and
    // in every child forked afterwards takes it from there. Returns whether the kernel is now in
    // memory; a refusal is left to generate(). Unset: generate() is quick wherever it runs.
    std::function<bool(const std::any& params, const KernelTarget& target)> keep_traced;

    std::vector<DecisionAxis> decision_axes;
    // The same decisions over their whole legal range for one config's inputs and target, as
    // bnsim tune screens them; unset: decision_axes' values.
    std::function<std::vector<DecisionAxis>(const std::any& params, const KernelTarget& target)> tune_axes;
    Overrides auto_overrides;  // the --set pairs that leave every decision to the kernel
    // The fields of GeneratedKernel::summary, in order (reports print them as "kernel_summary").
    std::vector<SummaryField> summary_fields;

    // The kernel's own fields of the `bnsim run` report's JSON (after "schedule"), from the
    // generated kernel; unset: none.
    std::function<void(const GeneratedKernel& k, nlohmann::ordered_json& report)> add_run_fields;
    // The kernel's own lines in the `bnsim run` and `bnsim trace` text reports, printed after
    // the kernel line from the report's JSON (e.g. batch_norm_bwd's memory config); unset: none.
    std::function<void(const nlohmann::ordered_json& report, std::ostream& out)> print_run_lines, print_trace_lines;

    const KernelNumerics* numerics = nullptr;  // bnsim validate support; nullptr: timing only
};

// The registered kernels; nullptr for an unknown name.
const KernelEntry* find_kernel(const std::string& name);
std::vector<std::string> kernel_names();

// Casts a kernel's opaque params back to its own type (the entry's functions use this).
template <class P>
const P& kernel_params(const std::any& a) {
    return std::any_cast<const P&>(a);
}

}  // namespace bnsim
