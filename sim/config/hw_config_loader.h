#pragma once
#include <string>
#include <utility>
#include <vector>

#include "models/hw_config.h"
#include "configfile/config_node.h"

namespace bnsim {

// Parses a hardware config tree (keys reported as "hardware.<key>"). Every scalar parameter is
// read through the declared table (models/hw_params.h): its kind and allowed range are enforced,
// and its provenance ({value, source} or {value, estimate: true, note, uncertainty: {low, high}})
// lands in HwConfig::provenance.
HwConfig parse_hw_config(ConfigNode& hw);
// The same with the cost table given: `costs` is what parse_hw_config made of this very `costs`
// list before (a preset whose overrides leave its cost rows alone), so it is not read again.
HwConfig parse_hw_config(ConfigNode& hw, const std::vector<CostEntry>& costs);

// Applies `--set hardware.KEY=VALUE` overrides (KEY without "hardware.") to a preset tree and
// records them in `src`. KEY must be a declared parameter, a group of them ("dma"), "name" or
// "costs"; anything else is a ConfigError naming the --set and the closest declared names. A
// scalar set on a parameter the preset gives as {value, ...} replaces the value and keeps its
// provenance.
void apply_hw_overrides(YAML::Node root, const std::vector<std::pair<std::string, std::string>>& overrides,
                        ConfigSource& src);

// The shortcut past apply_hw_overrides and parse_hw_config when every override names a declared
// parameter with a scalar (a fit's, a sensitivity range end's): sets them on `hw`, which
// parse_hw_config made of the same preset without overrides, and marks them overridden, giving
// the HwConfig the overridden tree would parse to. `scalars` gets each value's YAML scalar text,
// as the tree would hold it. False, `hw` untouched, if any override is of another kind or would
// be refused: the caller then takes the long way, whose error names the --set.
bool set_param_overrides(HwConfig& hw, const std::vector<std::pair<std::string, std::string>>& overrides,
                         std::vector<std::string>& scalars);

// Finds a preset by name (configs/hw/NAME.yaml, searched next to the run config and in the
// installed config directory) or takes a path.
std::string resolve_hw_path(const std::string& name_or_path, const std::string& run_config_file);

}  // namespace bnsim
