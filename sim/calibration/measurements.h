#pragma once
// configs/calibration/measurements.yaml: the public trn2 measurements as data, one row per
// figure, each naming the run config that reproduces it, what is compared and where the figure
// comes from.
#include <optional>
#include <string>
#include <vector>

namespace bnsim {

struct Measurement {
    std::string id;
    std::string config;                  // resolved path of the run config
    std::optional<std::string> baseline;  // resolved path: its metric is subtracted
    // Run-config keys this row sets on its config (and baseline), as `--set key=value`, e.g.
    // activation.free=512: one config serves the rows of a measurement at several widths.
    std::vector<std::string> sets;
    std::string metric;
    std::string parameter;  // hw_parameter rows: dotted key of the hardware config
    double measured = 0;
    std::string source;
    bool third_party = false;
    // The hardware config's cost rows were fitted to this figure, so the row checks the fit; a
    // row that is not fitted is a prediction.
    bool fitted = false;
    std::string uncertainty;
    // A known deficiency of the timing model (not of a parameter) that keeps this row outside
    // the tolerance, described precisely. The row still counts as outside.
    std::string model_gap;
    // What the figure times: one instruction (or one DMA, one parameter), or a whole kernel, where
    // instructions compose (semaphore waits, DMA queues, overlap between iterations). Whole
    // kernels have their own tolerance and are reported as their own group.
    enum class Scope { instruction, whole_kernel } scope = Scope::instruction;
};

// "instruction" / "whole_kernel", as measurements.yaml's `scope` spells it.
inline const char* scope_name(Measurement::Scope s) {
    return s == Measurement::Scope::whole_kernel ? "whole_kernel" : "instruction";
}

struct MeasurementSet {
    std::string file;
    double tolerance_pct = 15;               // per-instruction rows
    double whole_kernel_tolerance_pct = 10;  // whole-kernel rows
    std::vector<Measurement> rows;
    double tolerance_of(Measurement::Scope s) const {
        return s == Measurement::Scope::whole_kernel ? whole_kernel_tolerance_pct : tolerance_pct;
    }
    double tolerance_for(const Measurement& m) const { return tolerance_of(m.scope); }
};

// The metrics a row may compare (see measurements.yaml for their definitions).
const std::vector<std::string>& calibration_metrics();

// Whether a metric is a time in ns (so the point can be shown in us).
bool metric_is_ns(const std::string& metric);

// Parses and checks the file (unknown keys, duplicate ids, missing configs, missing sources are
// ConfigErrors naming file, line and key). Config paths are relative to the file.
MeasurementSet load_measurements(const std::string& path);

}  // namespace bnsim
