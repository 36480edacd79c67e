#pragma once
// A run config: which hardware, which kernel with which inputs, and how to run it.
#include <any>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kernels/kernel_entry.h"
#include "models/hw_config.h"
#include "sim/config/numerics_config.h"
#include "sim/schedule/schedule_policy.h"

namespace bnsim {

struct HwCanonical;  // sim/config/run_config.cpp

struct RunConfig {
    std::string file;
    std::string hw_file;
    HwConfig hw;
    std::string kernel;
    int lnc = 1;
    SchedulePolicy schedule = SchedulePolicy::list;
    const KernelEntry* entry = nullptr;  // the registered kernel named by `kernel:`
    std::any kernel_params;              // its parsed section, opaque here (the entry reads it)
    NumericsConfig numerics;             // `numerics:` (bnsim validate; what-ifs reach the kernel)
    std::string config_json;             // the run config's tree after --set, canonical
    std::shared_ptr<const HwCanonical> hw_canonical;  // the hardware preset's, after --set

    // Config + hardware preset after --set, canonical: what provenance hashes. The hardware's part
    // is printed when first asked for (a fit's simulations never ask).
    std::string resolved_json() const;

    KernelTarget target() const;
    // A KernelError (an input the kernel rejects) is rethrown naming the run config file. The
    // trace's dependencies are derived (what scheduling and simulation need), or with
    // Dependencies::later left to the caller where the kernel leaves them (Trace::deps_derived):
    // a command that screens many traces derives only those it schedules.
    enum class Dependencies { derived, later };
    GeneratedKernel generate(Dependencies d = Dependencies::derived) const;
    // The same, kept in this process's memory (kernels/trace_cache.h) with its reverse edges and
    // shared, not copied: the next request of this run config on this target (a fit's next
    // evaluation, a sensitivity scenario that keeps the target) takes it from there.
    std::shared_ptr<const GeneratedKernel> shared_kernel() const;
    // Whether the kernel has a keep_traced (kernels/kernel_entry.h), which this calls. Never throws.
    bool keep_traced() const;
};

// "--set a.b=c" arguments, in order (Overrides: kernels/kernel_entry.h).
Overrides parse_overrides(const std::vector<std::string>& args);

// What set an override, by its key, for messages ("--axis", "column"); unlisted keys: "--set".
using OverrideOrigins = std::map<std::string, std::string>;

// Loads and checks a run config and its hardware preset; throws ConfigError.
RunConfig load_run_config(const std::string& path, const Overrides& overrides = {}, const OverrideOrigins& origins = {});

}  // namespace bnsim
