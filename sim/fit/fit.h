#pragma once
// Fits named hardware parameters to measured points, minimising the RMS relative error of the
// predictions over the parameters' ranges. A discrete-event simulator's response is jagged, so
// the search is global, then local: a Halton sample of the whole box (and the start), then from
// the best few points apart from each other a local search - NLopt's BOBYQA (Sbplx for one)
// over the real parameters, unit steps over integers, the other value for flags - until nothing
// improves. Every evaluation predicts all points (each in its own child process), and each
// distinct parameter vector is evaluated once.
// Afterwards: a value on its bound says so, with the side the data pull to; each value gets an
// interval (the values over which the RMS error stays within a stated tolerance of its minimum,
// the others held); and each parameter's effect on the points says which ones the data cannot
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
    enum class Kind { real, integer, boolean };
    Kind kind = Kind::real;   // integers are searched at whole values, flags as 0 and 1
    std::string at_bound;     // "", "low" or "high": the fitted value is on that bound
    std::string pull;         // at a bound: "below the range" / "above the range" if the data pull past it
    double interval_lo = 0, interval_hi = 0;  // values within the tolerance of the minimum
};

struct FitOptions {
    int max_evals = 0;     // 0: 12 n + 8 global points, then 3 local searches of 20 n + 10 (n parameters)
    double xtol_rel = 1e-4;
    double interval_tolerance_pct = 0.25;  // an interval: RMS error within this many points of the minimum
};

// Whether the data can pin a parameter: its effect on the points' relative errors for a step of
// 5% of its range away from the optimum, and whether the parameters before it already span it.
struct Identifiability {
    std::string name;
    double sensitivity_pct = 0;
    bool identifiable = false;
    std::string why;  // when not
};

struct FitPoint {
    std::string id, metric;
    double measured = 0, before = 0, after = 0;  // the prediction with the preset's and the fitted values
};

struct FitResult {
    std::vector<FitParam> params;
    double mape_before = 0, mape_after = 0;   // percent
    double rms_before = 0, rms_after = 0;     // root mean squared relative error, percent
    int evaluations = 0;
    std::string stop_reason;
    std::string method;                       // the search, in words
    double interval_tolerance_pct = 0;
    std::vector<Identifiability> identifiability;  // per parameter
    std::vector<FitPoint> points;
};

// The objective as a function of parameter values: the predictions of every point (tests
// substitute a model). A failed prediction throws.
using PointModel = std::function<std::vector<double>(const std::vector<double>& values)>;
// The same for several parameter vectors at once (what `fit` calls: the vectors' simulations
// share the workers): per vector, the predictions or why they failed.
struct ModelOutcome {
    std::vector<double> predictions;
    std::string error;  // empty: the predictions hold
};
using PointBatchModel = std::function<std::vector<ModelOutcome>(const std::vector<std::vector<double>>& values)>;

// The search asks for the vectors it knows it will need together (the global sample, each
// interval scan's first steps, the identifiability steps) in one call; every result is the one
// asking for them one by one gives.
FitResult fit_parameters(const MeasuredSet& set, std::vector<FitParam> params, const PointBatchModel& model,
                         const FitOptions& o = {});
// With a model of one vector at a time (one_by_one).
FitResult fit_parameters(const MeasuredSet& set, std::vector<FitParam> params, const PointModel& model,
                         const FitOptions& o = {});
// A batch model that asks `model` for each vector in turn, a vector's exception its error.
PointBatchModel one_by_one(const PointModel& model);

// The model that runs bnsim: each point predicted in a child with hardware.NAME=value set.
PointBatchModel bnsim_point_model(const MeasuredSet& set, const PredictOptions& po, const std::vector<FitParam>& params);

// Parses "NAME" or "NAME=LO:HI" (comma-separated lists allowed), names as `bnsim params` prints
// them; the start value is the config's. Without LO:HI an estimate is fitted within its
// uncertainty range and a sourced number within its allowed range (the parameter table's).
// Throws ConfigError for an unknown or boolean parameter or bounds outside the allowed range.
std::vector<FitParam> parse_fit_params(const std::vector<std::string>& specs, const HwConfig& hw);

// Writes a copy of the hardware YAML with the fitted values; each carries estimate: true and a
// note with its provenance (data file, fit error before and after, date, previous value and source).
void write_fitted_hw(const std::string& hw_file, const OutputFile& out, const FitResult& r, const std::string& data_file);

}  // namespace bnsim
