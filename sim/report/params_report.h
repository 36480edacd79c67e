#pragma once
// What `bnsim params` reports: every declared hardware parameter (models/hw_params.h) of a
// resolved hardware config with its value, unit, kind, allowed range and provenance (source, or
// estimate with the uncertainty range its evidence spans).
//
// JSON: {"hardware", "preset", "params": [{name, value, unit, kind, allowed: [lo, hi],
//        source (string or null), estimate, uncertainty: [lo, hi] or null,
//        uncertainty_why: [why lo, why hi] or null, note, overridden}]}
// Values keep their kind (integers as integers, booleans as true/false), so each can be given
// back as `--set hardware.NAME=VALUE`.
#include <iosfwd>
#include <string>

#include <nlohmann/json.hpp>

#include "models/hw_config.h"

namespace bnsim {

nlohmann::ordered_json params_json(const HwConfig& hw, const std::string& preset_file);
void print_params_table(const nlohmann::ordered_json& report, std::ostream& out);

}  // namespace bnsim
