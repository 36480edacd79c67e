#pragma once
// The band a prediction hangs on: the run's latency at both ends of every estimated parameter's
// range, one parameter at a time (each run a child process), and which parameter drives each end.
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/config/run_config.h"

namespace bnsim {

// The parameter and value that drive one end of the band.
struct BandDriver {
    std::string name;
    double value = 0;
};

// One estimated parameter at each end of its range.
struct BandParam {
    std::string name;
    double low = 0, high = 0;
    double latency_low_ns = 0, latency_high_ns = 0;  // the centre where that end failed
    std::string error_low, error_high;              // why an end's run failed, if it did
};

// Every estimated parameter varied at once (add_joint_band).
struct JointBand {
    double p5_ns = 0, p50_ns = 0, p95_ns = 0;      // percentiles of the sample
    double widened_p5_ns = 0, widened_p95_ns = 0;  // the 90% band widened by the model's own error
    double min_ns = 0, max_ns = 0;                 // the extremes, confirmed where they ran
    std::optional<double> min_confirmed_ns, max_confirmed_ns;
    std::vector<std::pair<std::string, double>> ranking;  // each parameter's share of the variance
    size_t samples = 0;
    std::string method;  // empty when there was nothing to sample
};

// Whether the kernel's own choice stays best under the joint samples (bnsim tune's answer).
struct ChoiceRobustness {
    double best_probability = 0;
    std::string best_most_often;
    int samples = 0;
};

// What a band is of, as the measurement it stands next to counts it: a benchmark's latency (the
// kernel plus launch.fixed_ns, neuron-bench and nki.benchmark) or a profile's total_time (the
// kernel plus launch.profile_window_ns, the profiled run's pre- and postamble). Each end and
// sample adds its own value of that estimate.
enum class BandOf { latency, profile_total_time };
const char* band_of_name(BandOf of);  // "latency" | "profile_total_time"
// The figure a band of `of` is of, for a run on hardware `hw`.
double band_figure(BandOf of, const HwConfig& hw, double kernel_ns, double latency_ns);

// `bnsim run --uncertainty`'s band: printed from here and written as the report's "uncertainty".
struct LatencyBand {
    BandOf of = BandOf::latency;
    double latency_ns = 0, low_ns = 0, high_ns = 0;  // of `of`
    std::optional<BandDriver> low_driver, high_driver;
    std::string method;
    std::vector<BandParam> params;
    double model_error_pct = 0;
    std::optional<JointBand> joint;
    std::optional<ChoiceRobustness> choice;
};

// The run's latency at both ends of every estimated parameter's range, one at a time; with no
// ranged estimate the band is the value. `estimate`: the ends come from the screening estimate,
// as latency_ns then does (run --estimate), so the band and its centre are one kind of figure.
LatencyBand latency_band(const RunConfig& cfg, const std::string& config, const Overrides& sets, double latency_ns,
                         int jobs, double timeout_s = 300, bool estimate = false, BandOf of = BandOf::latency);

// The joint band: every estimated parameter varied at once over a Halton sample of their ranges
// (`samples` points), each sample priced by the screening estimate in this process and scaled to
// the full simulation at the preset; the lowest and highest samples confirmed in full simulation
// (child processes); each parameter's share of the sample's variance from its squared
// correlation with the latency. Sets band.joint and band.model_error_pct; the band is of band.of.
void add_joint_band(LatencyBand& band, const RunConfig& cfg, const std::string& config, const Overrides& sets,
                    double latency_ns, int jobs, double timeout_s = 300, int samples = 64);

// The model's own form error: the RMS of the whole-kernel calibration rows' errors, 4.4%
// (`bnsim calibrate`, its whole-kernel group: M4 at FREE_DIM 2 and 200, W1's total_time, Tensor-
// and Scalar-engine times, DMA active time and transfer count, V1's two total_times, W2's
// latency; 4.42% rounded; tests/test_calibration_run.cpp checks the figure against it). A
// kernel's latency is a whole kernel's, so this, not the per-instruction rows' 1.4%, is what a
// band lacks. Ten rows over four kernels show no pattern by kernel class.
constexpr double kModelErrorPct = 4.4;

nlohmann::ordered_json to_json(const LatencyBand& band);
void print_latency_band(const LatencyBand& band, std::ostream& out);

}  // namespace bnsim
