#pragma once
// The uncertain hardware numbers of a run config, as one list: every parameter its preset marks
// `estimate: true` (models/hw_params.h, estimated_params) and every estimated instruction cost
// row with an id (its cycles_per_elem), each with the range its evidence spans. Ranges given on
// the command line as NAME=LO:HI replace a listed one's or add a parameter of the table.
//
// Each is named as `--set hardware.NAME=V` takes it: "dma.min_queue_occupancy_ns",
// "costs.dve.stt.bf16.subtract_subtract.cycles_per_elem".
#include <string>
#include <vector>

#include "models/hw_config.h"
#include "models/hw_params.h"
#include "sim/config/run_config.h"

namespace bnsim {

struct UncertainParam {
    std::string name;  // as --set hardware.NAME takes it
    std::string unit;
    double value = 0;
    double lo = 0, hi = 0;
    std::string lo_why, hi_why;
    int cost_row = -1;  // index into HwConfig::costs for a cost row, else -1
    ParamKind kind = ParamKind::real;  // interior samples of an integer are whole; a flag has none
};

// In table order, then cost rows in preset order. ConfigError for a malformed --range, an
// unknown name or a range outside the parameter's allowed range.
std::vector<UncertainParam> uncertain_params(const HwConfig& hw, const std::vector<std::string>& ranges = {});

// The value set into a copy of the hardware (what `--set hardware.NAME=v` would load).
void set_uncertain(HwConfig& hw, const UncertainParam& p, double v);

// The --set pair for a child process.
std::pair<std::string, std::string> uncertain_override(const UncertainParam& p, double v);

}  // namespace bnsim
