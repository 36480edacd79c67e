#pragma once
// A run config: which hardware, which kernel with which inputs, and how to run it.
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kernels/batch_norm_bwd/params.h"
#include "kernels/kernel_target.h"
#include "models/hw_config.h"
#include "sim/config/numerics_config.h"

namespace bnsim {

using KernelBuilder = std::function<GeneratedKernel(const KernelTarget&)>;

enum class SchedulePolicy { list, program_order };

struct RunConfig {
    std::string file;
    std::string hw_file;
    HwConfig hw;
    std::string kernel;
    int lnc = 1;
    SchedulePolicy schedule = SchedulePolicy::list;
    std::optional<bn::Params> batch_norm_bwd;  // set when kernel == batch_norm_bwd
    KernelBuilder build;                       // generates the kernel's trace
    NumericsConfig numerics;                   // `numerics:` (bnsim validate; what-ifs reach the kernel)

    KernelTarget target() const;
    GeneratedKernel generate() const { return build(target()); }
};

// "--set a.b=c" arguments, in order.
using Overrides = std::vector<std::pair<std::string, std::string>>;
Overrides parse_overrides(const std::vector<std::string>& args);

// Loads and checks a run config and its hardware preset; throws ConfigError.
RunConfig load_run_config(const std::string& path, const Overrides& overrides = {});

}  // namespace bnsim
