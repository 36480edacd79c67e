#pragma once
// How far predictions are from measurements: per point the error, over the set MAPE, max error,
// Spearman rank correlation and whether the measured-best config is the predicted-best; for a
// profile, per-engine busy time, per-phase duration and the per-(engine, opcode) instruction
// duration distribution, measured against predicted. Built once as typed comparisons; the
// report's text, HTML and JSON are written from their fields.
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/compare/predict.h"
#include "sim/measured/measured_runs.h"
#include "sim/measured/profile.h"

namespace bnsim {

struct PointComparison {
    std::string id;
    int line = 0;          // 0: not line-based
    Overrides keys;        // the point's run-config keys
    std::string config;    // its own run config, if any
    std::string metric;
    double measured = 0;   // in the metric's unit
    std::string error;     // why it could not be predicted (then nothing below is set)
    double predicted = 0;  // rounded to 1e-6
    std::optional<double> measured_us, predicted_us;  // *_ns metrics
    std::map<std::string, double> percentiles_us;
    double error_pct = 0;
    std::map<std::string, double> engine_busy_ns;  // latency points
    // compare --bands, latency points: the run's joint 90% band over the estimated parameters,
    // widened by the model's own error (as run --uncertainty), and whether it holds the measurement.
    std::optional<double> band_low_ns, band_high_ns;
    std::optional<bool> band_contains;
};

// Whether bnsim orders one kernel's measured configs as the hardware did: the points of a
// calibration whole-kernel family (MeasuredPoint::kernel) measuring one metric.
struct KernelRanking {
    std::string kernel, metric;
    size_t points = 0;
    std::optional<double> spearman;  // none when the measured or predicted values all tie
    bool same_order = false;         // Spearman 1: the predicted order is the measured one
};

struct PointsComparison {
    std::string measured_file, format;
    std::vector<PointComparison> points;  // predicted
    std::vector<PointComparison> failed;  // could not be predicted
    std::optional<double> mape_pct, max_error_pct;
    std::string max_error_point;
    std::string rank_metric;  // the metric ranked and judged for the best config; empty: none
    std::optional<double> spearman;
    std::optional<std::string> measured_best, predicted_best;
    std::optional<bool> best_config_agrees;
    std::vector<KernelRanking> kernels;  // per kernel measured at two or more configs
    // Filled by the command: the config the points modify, and --tolerance's verdict.
    std::string against;
    std::optional<double> tolerance_pct;
    bool pass = true;
};

struct MeasuredPredicted {
    std::string name;  // engine ("vector"), phase ("FUNCTION:phase2") or "total_time"
    double measured_ns = 0, predicted_ns = 0;
    std::optional<double> error_pct;  // none when nothing was measured
};

struct DurationStats {
    size_t count = 0;
    double mean_ns = 0, p50_ns = 0, p90_ns = 0;
};

struct OpcodeComparison {
    std::string engine, opcode;
    std::optional<DurationStats> measured, predicted;
    std::optional<double> mean_error_pct;
};

struct ProfileComparison {
    std::string measured_file;
    bool measured_is_simulation = false;
    std::optional<MeasuredPredicted> total_time;
    std::vector<MeasuredPredicted> engines;
    std::string phase_windows_include;  // "instructions and DMA transfers" or "instructions only"
    std::vector<MeasuredPredicted> phases;
    std::vector<OpcodeComparison> opcodes;
    std::string against;  // filled by the command
};

// What `bnsim compare` reports: a measured set's points, or a profile.
struct CompareReport {
    std::optional<PointsComparison> points;
    std::optional<ProfileComparison> profile;
    nlohmann::ordered_json provenance;
};

PointsComparison compare_points(const MeasuredSet& set, const std::vector<Prediction>& pred);
ProfileComparison compare_profiles(const Profile& measured, const Profile& predicted);

// points report: {measured_file, format, points[], failed[], mape_pct, max_error_pct,
// max_error_point, rank_metric, spearman, measured_best, predicted_best, best_config_agrees,
// kernels[] {kernel, metric, points, spearman, same_order},
// against, tolerance_pct, pass, provenance}; profile report: {profile: {...}, provenance}.
nlohmann::ordered_json to_json(const CompareReport& r);
nlohmann::ordered_json to_json(const PointsComparison& c);
nlohmann::ordered_json to_json(const ProfileComparison& c);

}  // namespace bnsim
