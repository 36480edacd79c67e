#pragma once
// Which uncertain parameter could change a user's decision. For each estimate (the parameter
// table's and the estimated cost rows', sim/sensitivity/uncertain_params.h) at both ends of its
// range: the config's latency and binding units (a full simulation, each in its own child
// process), and the ranking of an explicit grid of the kernel's decision axes (e.g. f_tile x
// interleave x direct_x_residency) by the list scheduler's estimate, in
// process: is the kernel's own choice still the best, which grid config wins, and what each
// on/off axis (residency) saves.
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/decision/decision_grid.h"

namespace bnsim {

struct SensitivityOptions {
    std::string config;
    std::vector<std::string> sets;
    std::vector<std::string> ranges;  // NAME=LO:HI replacing a listed range or adding a parameter
    std::vector<GridAxis> grid;       // empty: the kernel's decision axes with their declared values
    int jobs = 2;
    double timeout_s = 300;
    double threshold_pct = 2;  // "moves the latency" above this
    double tie_pct = kTiePct;  // the kernel's choice counts as best within this of the best grid config
};

// params[].{name, unit, value, low, high, low_why, high_why, latency_low_ns, latency_high_ns,
// change_low_pct, change_high_pct, max_change_pct, binding_low, binding_high, choice_low,
// choice_high, best_config_low, best_config_high, choice_best_low, choice_best_high,
// saves_low_ns, saves_high_ns, moves_latency, moves_decision, binding_changes}, base{...}, grid,
// method; params sorted by the larger latency change. Throws ConfigError for bad input.
nlohmann::ordered_json sensitivity(const SensitivityOptions& o);

// A memory grid of more configs is refused up front (the default grid is 96; each config is
// estimated once per range-end case, 43 cases on trn2).
constexpr size_t kMaxGridPoints = 2000;

// The measurements (microbenchmarks) that would pin the parameters that matter, in priority
// order: those that change the decision first, then those that move the latency or binding.
nlohmann::ordered_json suggest_measurements(const nlohmann::ordered_json& report);

void print_sensitivity(const nlohmann::ordered_json& report, std::ostream& out);
std::string sensitivity_html(const nlohmann::ordered_json& report);

}  // namespace bnsim
