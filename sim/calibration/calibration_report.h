#pragma once
// What `bnsim calibrate` reports: per measurement, the measured and simulated values, the error
// and whether it is within the file's tolerance.
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/calibration/measurements.h"

namespace bnsim {

struct CalibrationRow {
    Measurement m;
    bool ran = false;       // false: the run failed, `error` says why
    std::string error;
    double simulated = 0;
    double error_pct = 0;   // (simulated - measured) / measured, in percent
    bool within = false;    // |error_pct| <= tolerance
};

// Fills error_pct and within from measured, simulated and the tolerance.
void score(CalibrationRow& row, double tolerance_pct);

// Every row within its tolerance.
bool calibration_passes(const std::vector<CalibrationRow>& rows);
// Per group (instruction, whole_kernel): rows, within, tolerance_pct, mape_pct, rms_pct, outside.
nlohmann::ordered_json calibration_groups_json(const MeasurementSet& set, const std::vector<CalibrationRow>& rows);
nlohmann::ordered_json calibration_json(const MeasurementSet& set, const std::vector<CalibrationRow>& rows);
void print_calibration_table(const MeasurementSet& set, const std::vector<CalibrationRow>& rows, std::ostream& out);

}  // namespace bnsim
