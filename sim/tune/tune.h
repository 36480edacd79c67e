#pragma once
// bnsim tune: the memory-config decision in one command. Every legal value of the kernel's
// decision axes for the config's inputs (KernelEntry::tune_axes) is screened by the list
// scheduler's estimate in this process; the best few, the kernel's own choice and the best with
// each on/off decision flipped are confirmed in full simulation (child processes); and those are
// priced again under joint samples of every estimated hardware parameter, to say how often each
// is the best. The answer: the config to use, its latency and band, how it compares with the
// kernel's own choice, whether the difference is beyond the model's own error, what bounds it.
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/config/run_config.h"
#include "sim/decision/decision_grid.h"

namespace bnsim {

struct TuneOptions {
    std::string config;
    std::vector<std::string> sets;
    std::vector<GridAxis> axes;  // each replaces the kernel's axis of that key, or adds one
    int confirm = 5;             // the best this many of the screen are confirmed in full simulation
    int samples = 32;            // joint samples of the estimated parameters
    int jobs = 2;
    double timeout_s = 300;
    double tie_pct = kTiePct;
};

// One confirmed config.
struct TunedConfig {
    std::string label;     // its decisions, "f_tile=4096 interleave=7 direct_x_residency=true"
    std::map<std::string, std::string> values;  // the same as axis key -> value
    Overrides sets;        // how to run it (the kernel's own choice: the kernel's auto overrides)
    bool own = false;      // the kernel's own choice
    double estimate_ns = 0;   // screening estimate at the preset
    double latency_ns = 0;    // full simulation at the preset
    std::string binding;      // the whole kernel's binding unit ("dma")
    std::string phases;       // each phase's, "phase 1 dve, phase 2 dma"
    // Under the joint samples, on the full simulation's scale (the estimate times this config's
    // full/estimate ratio at the preset):
    double p5_ns = 0, p50_ns = 0, p95_ns = 0;
    double best_share = 0;  // fraction of the samples in which it is within the tie of the best
};

// What an on/off decision is worth: the best confirmed config with it on against the best with
// it off, both in full simulation (the same figure sweep and sensitivity call "saves").
struct OnOffValue {
    std::string key;
    double on_ns = 0, off_ns = 0;  // NaN: no confirmed config had that value
    double saves_ns() const { return off_ns - on_ns; }
};

struct TuneReport {
    std::string config, hardware_file, kernel;
    std::vector<GridAxis> axes;
    size_t screened = 0;    // grid points
    size_t infeasible = 0;  // refused by the kernel (e.g. over the SBUF budget)
    std::string infeasible_example;
    std::vector<TunedConfig> confirmed;  // by full-simulation latency
    size_t best = 0;  // index into confirmed: the fastest, or the kernel's own if within the tie
    size_t own = 0;   // index into confirmed
    std::vector<OnOffValue> on_off;
    int samples = 0;                       // joint samples that every candidate could be priced in
    std::vector<std::string> sampled;      // the estimated parameters varied
    double choice_best_probability = 0;    // the kernel's choice's best_share
    std::string best_most_often;           // label
    double model_error_pct = 0;
    double tie_pct = 0;
    double difference_pct = 0;  // the kernel's choice over the best, in percent of the kernel's choice
    bool keep_own = true;       // the recommendation: keep the kernel's choice
    std::string reason;
    double band_p5_ns = 0, band_p95_ns = 0;  // the recommended config's 90% band widened by the model's error
};

// Throws ConfigError (bad config, option or axis) or KernelError (the config itself refused).
TuneReport tune(const TuneOptions& o);

// Whether the config's kernel declares decisions tune can vary without --axis.
bool has_tune_axes(const RunConfig& cfg);

nlohmann::ordered_json tune_json(const TuneReport& r);
void print_tune(const TuneReport& r, std::ostream& out);
std::string tune_html(const TuneReport& r);

// The most configs tune screens (the default memory axes of the kernels in the registry are ~100).
constexpr size_t kMaxTunePoints = 2000;

}  // namespace bnsim
