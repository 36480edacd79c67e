#pragma once
// Fits named hardware parameters to measured points: a bound-constrained derivative-free search
// (NLopt's BOBYQA) over the parameters' allowed ranges, minimising the mean squared relative
// error of the predictions; every evaluation predicts all points, each in its own child process.
// Afterwards each parameter's effect on the points is probed to say which ones the data cannot
// identify (no point moves with it, or it moves the points only as the others do).
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/hw_config.h"
#include "sim/compare/predict.h"
#include "sim/measured/measured_runs.h"

namespace bnsim {

class OutputFile;

struct FitParam {
    std::string name;  // hardware dotted key, e.g. dma.issue_ns
    double lo = 0, hi = 0;
    double start = 0;  // the config's current value
    double value = 0;  // fitted
    std::string bounds_from;  // "--params", "uncertainty range" (an estimate's) or "allowed range"
    bool integer = false;     // an integer parameter: evaluated at whole values
};

struct FitOptions {
    int max_evals = 0;     // 0: 40 x parameters + 20
    double xtol_rel = 1e-4;
};

struct FitResult {
    std::vector<FitParam> params;
    double mape_before = 0, mape_after = 0;   // percent
    double rms_before = 0, rms_after = 0;     // root mean squared relative error, percent
    int evaluations = 0;
    std::string stop_reason;
    nlohmann::ordered_json identifiability;   // per parameter: {name, identifiable, why, sensitivity}
    nlohmann::ordered_json points;            // per point: measured, before, after
};

// The objective as a function of parameter values: the predictions of every point (what `fit`
// calls; tests substitute a model). A failed prediction throws.
using PointModel = std::function<std::vector<double>(const std::vector<double>& values)>;

FitResult fit_parameters(const MeasuredSet& set, std::vector<FitParam> params, const PointModel& model,
                         const FitOptions& o = {});

// The model that runs bnsim: each point predicted in a child with hardware.NAME=value set.
PointModel bnsim_point_model(const MeasuredSet& set, const PredictOptions& po, const std::vector<FitParam>& params);

// Parses "NAME" or "NAME=LO:HI" (comma-separated lists allowed), names as `bnsim params` prints
// them; the start value is the config's. Without LO:HI an estimate is fitted within its
// uncertainty range and a sourced number within its allowed range (the parameter table's).
// Throws ConfigError for an unknown or boolean parameter or bounds outside the allowed range.
std::vector<FitParam> parse_fit_params(const std::vector<std::string>& specs, const HwConfig& hw);

// Writes a copy of the hardware YAML with the fitted values; each carries estimate: true and a
// note with its provenance (data file, fit error before and after, date, previous value and source).
void write_fitted_hw(const std::string& hw_file, const OutputFile& out, const FitResult& r, const std::string& data_file);

}  // namespace bnsim
