#pragma once
// Kernels selectable by `kernel:` in a run config, registered by name. Each entry parses its
// own keys from the run config and returns a builder that generates its trace.
#include <string>
#include <vector>

#include "sim/config/config_node.h"
#include "sim/config/run_config.h"

namespace bnsim {

struct KernelEntry {
    std::string name;
    // Reads the kernel's keys from the top-level config; may fill kernel-specific fields of cfg.
    std::function<KernelBuilder(ConfigNode& top, RunConfig& cfg)> parse;
};

const std::vector<KernelEntry>& kernel_registry();
std::vector<std::string> kernel_names();

}  // namespace bnsim
