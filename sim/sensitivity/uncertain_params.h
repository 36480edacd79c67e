#pragma once
// The uncertain numbers of a run config, as one list: every hardware parameter its preset marks
// `estimate: true` (models/hw_params.h, estimated_params), every estimated instruction cost row
// with an id (its cycles_per_elem), then the kernel's own estimates its trace depends on (the NKI
// compiler's buffer depth: GeneratedKernel::estimates), each with the range its evidence spans.
// Ranges given on the command line as NAME=LO:HI replace a listed one's or add a parameter of
// the table.
//
// A hardware one is named as `--set hardware.NAME=V` takes it: "dma.min_queue_occupancy_ns",
// "costs.dve.stt.bf16.subtract_subtract.cycles_per_elem"; a kernel's by its run-config key,
// "nki.loop_buffers".
#include <string>
#include <vector>

#include "models/hw_config.h"
#include "models/hw_params.h"
#include "sim/config/run_config.h"

namespace bnsim {

struct UncertainParam {
    std::string name;  // as --set hardware.NAME takes it
    std::string unit;
    double value = 0;
    double lo = 0, hi = 0;
    std::string lo_why, hi_why;
    int cost_row = -1;  // index into HwConfig::costs for a cost row, else -1
    ParamKind kind = ParamKind::real;  // interior samples of an integer are whole; a flag has none
    bool kernel_key = false;  // a run-config key of the kernel's: set by reloading the config, since it changes the trace
};

// In table order, then cost rows in preset order. ConfigError for a malformed --range, an
// unknown name or a range outside the parameter's allowed range.
std::vector<UncertainParam> uncertain_params(const HwConfig& hw, const std::vector<std::string>& ranges = {},
                                            const std::vector<KernelEstimate>& kernel = {});

// The value set into a copy of the hardware (what `--set hardware.NAME=v` would load); a kernel
// key is left alone (kernel_overrides gives it to a reload of the config).
void set_uncertain(HwConfig& hw, const UncertainParam& p, double v);

// The kernel keys' values of one sample as --set pairs, in the params' order; empty if none is a
// kernel key. Samples with the same pairs share one trace.
Overrides kernel_overrides(const std::vector<UncertainParam>& params, const std::vector<double>& values);

// The --set pair for a child process.
std::pair<std::string, std::string> uncertain_override(const UncertainParam& p, double v);

}  // namespace bnsim
