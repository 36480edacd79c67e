#pragma once
#include <string>
#include <vector>

#include "models/hw_config.h"
#include "configfile/config_node.h"

namespace bnsim {

// Parses a hardware config tree (keys reported as "hardware.<key>").
HwConfig parse_hw_config(ConfigNode& hw);

// Finds a preset by name (configs/hw/NAME.yaml, searched next to the run config and in the
// installed config directory) or takes a path.
std::string resolve_hw_path(const std::string& name_or_path, const std::string& run_config_file);

}  // namespace bnsim
