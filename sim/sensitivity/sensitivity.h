#pragma once
// Which uncertain parameter could change a user's decision. For each estimate (the parameter
// table's and the estimated cost rows', sim/sensitivity/uncertain_params.h) at both ends of its
// range: the config's latency and binding units (a full simulation, each in its own child
// process), and the ranking of an explicit grid of the kernel's decision axes (e.g. f_tile x
// interleave x direct_x_residency) by the list scheduler's estimate, in
// process: is the kernel's own choice still the best, which grid config wins, and what each
// on/off axis (residency) saves.
#include <optional>
#include <ostream>
#include <string>
#include <utility>
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

// The config in one hardware scenario (the preset, or one parameter at one end of its range).
struct ScenarioResult {
    std::optional<double> latency_ns;  // full simulation; none when it failed
    std::string error;                 // why it failed
    std::string binding;               // per phase, "phase 1 dve, phase 2 dma"
    std::string choice;                // the kernel's decisions with this hardware
    double choice_estimate_ns = 0;     // its estimate; NaN when the kernel refused
    std::optional<std::string> best_config;  // the grid's best by estimate
    std::optional<double> best_estimate_ns;
    std::optional<bool> choice_best;   // the choice within the tie of the best
    std::vector<std::pair<std::string, std::optional<double>>> saves_ns;  // per on/off axis: on against off
    int grid_infeasible = 0;
};

// One point of a parameter's range, in full simulation.
struct RangeSample {
    double value = 0;
    std::optional<double> latency_ns, change_pct;
    std::string error;
};

struct ParamSensitivity {
    std::string name, unit;
    double value = 0, low = 0, high = 0;
    std::string low_why, high_why;
    ScenarioResult at_low, at_high;
    std::optional<double> change_low_pct, change_high_pct;
    std::vector<RangeSample> samples;  // the ends and inside points, by value
    double max_change_pct = 0;
    std::optional<double> max_change_at;
    bool max_change_inside = false;  // the largest move is at neither end
    bool moves_latency = false, moves_decision = false, binding_changes = false;
};

// A measurement that would pin a parameter (suggest_measurements).
struct MeasurementSuggestion {
    std::string param, kernel, measure;
    int priority = 0;
    std::string why;
};

struct SensitivityReport {
    std::string config, hardware_file, method;
    std::vector<GridAxis> grid;
    size_t grid_points = 0, simulations = 0, estimates = 0;
    double threshold_pct = 0, tie_pct = 0;
    ScenarioResult base;
    std::vector<ParamSensitivity> params;  // by the larger latency change
    std::optional<std::vector<MeasurementSuggestion>> suggest;
};

// Throws ConfigError for bad input.
SensitivityReport sensitivity(const SensitivityOptions& o);

// A memory grid of more configs is refused up front (the default grid is 96; each config is
// estimated once per range-end case, 43 cases on trn2).
constexpr size_t kMaxGridPoints = 2000;

// The measurements (microbenchmarks) that would pin the parameters that matter, in priority
// order: those that change the decision first, then those that move the latency or binding.
std::vector<MeasurementSuggestion> suggest_measurements(const SensitivityReport& report);

// {config, hardware_file, method, grid, grid_points, simulations, estimates, threshold_pct,
// tie_pct, base, params[], suggest}: the scenario fields per end as *_low / *_high.
nlohmann::ordered_json to_json(const SensitivityReport& report);
void print_sensitivity(const SensitivityReport& report, std::ostream& out);
std::string sensitivity_html(const SensitivityReport& report);

}  // namespace bnsim
