#pragma once
// What `bnsim params` reports: every declared hardware parameter (models/hw_params.h) of a
// resolved hardware config with its value, unit, kind, allowed range and provenance (source, or
// estimate with the uncertainty range its evidence spans). The text table and the JSON are both
// written from ParamsReport.
//
// JSON: {"hardware", "preset", "params": [{name, value, unit, kind, allowed: [lo, hi],
//        source (string or null), estimate, uncertainty: [lo, hi] or null,
//        uncertainty_why: [why lo, why hi] or null, note, overridden}]}
// Values keep their kind (integers as integers, booleans as true/false), so each can be given
// back as `--set hardware.NAME=VALUE`.
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/hw_config.h"
#include "models/hw_params.h"
#include "models/param_provenance.h"

namespace bnsim {

struct ParamRow {
    const HwParam* param = nullptr;  // its declaration: name, unit, kind, allowed range
    double value = 0;
    ParamProvenance provenance;  // source or estimate with its range; overridden by --set
};

struct ParamsReport {
    std::string hardware, preset;
    std::vector<ParamRow> params;  // in declaration order
};

ParamsReport params_report(const HwConfig& hw, const std::string& preset_file);
nlohmann::ordered_json to_json(const ParamsReport& r);
void print_params_table(const ParamsReport& r, std::ostream& out);

}  // namespace bnsim
