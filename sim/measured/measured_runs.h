#pragma once
// Measured runs: points a user measured on a trn2, each naming the run config it used (as
// dotted-key overrides of a base config) and what was measured. Three file forms are read:
//
//  - a measured-runs CSV: any run-config dotted keys as columns (`shape.C`, `memory.interleave`,
//    `kernel`, `vector_add.free`, `hardware.dma.issue_ns`, ...), `latency_us` (required),
//    optional percentile columns `p<N>_us` (p50_us, p99_us, ...) and the reserved columns
//    `id`, `config` (a run config path, relative to the CSV; else the --against config) and
//    `source`. An empty cell leaves that key at the base config's value.
//  - a latency table as nki.benchmark / neuron-bench report it (bnsim's accepted text form, see
//    the README and configs/measured/vector_add_m4_latency.txt): `run:` blocks of `pNN: VALUE UNIT`.
//  - bnsim's calibration data set (configs/calibration/measurements.yaml): one point per row,
//    with the row's metric (latency, instruction duration, DMA figures, hardware parameters).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/calibration/measurements.h"  // metric_is_ns
#include "sim/config/run_config.h"

namespace bnsim {

struct MeasuredPoint {
    std::string id;        // `id` column / calibration row id / "line N"
    int line = 0;          // where the point is in its file (0: not line-based)
    std::string config;    // run config path (resolved); empty = the --against config
    std::optional<std::string> baseline;  // calibration rows: this config's metric is subtracted
    Overrides sets;        // dotted run-config keys and their YAML values
    std::string metric = "latency_ns";    // what `measured` is (see measurements.yaml's metric list)
    std::string parameter;                // hw_parameter rows: the hardware key
    double measured = 0;                  // in the metric's unit (ns for *_ns metrics)
    std::map<std::string, double> percentiles_us;  // "p50" -> 186.0
    std::string source;
    // The kernel whose configs this point ranks with (calibration whole-kernel rows: the id's
    // family, "M4" of "M4.free2"); empty: the file's points are one kernel's configs.
    std::string kernel;
};

struct MeasuredSet {
    std::string file;
    std::string format;  // "runs_csv", "latency_table", "calibration"
    std::vector<MeasuredPoint> points;
};

// Each point is at least one simulation; a file with more is refused before any runs.
constexpr size_t kMaxMeasuredPoints = 10000;

// Reads any of the three forms (by content: a calibration YAML has `rows:`, a latency table
// has `run:` lines, anything else is read as CSV). Throws ImportError naming file, line and field.
MeasuredSet read_measured(const std::string& path);

// The parts, for tests.
MeasuredSet read_runs_csv(const std::string& path);
MeasuredSet read_latency_table(const std::string& path);

// A point's label for reports: its id, else its keys.
std::string point_label(const MeasuredPoint& p);

}  // namespace bnsim
