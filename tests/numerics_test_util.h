#pragma once
// Shared helpers of the numerics tests: load the default run config with overrides, generate
// the trace and inputs, and validate with a chosen runner.
#include <string>
#include <utility>
#include <vector>

#include "kernels/batch_norm_bwd/numerics/validate.h"
#include "numerics/runners.h"
#include "sim/config/run_config.h"
#include "sim/simulate/simulate.h"

namespace bnsim::test {

inline RunConfig numerics_config(const Overrides& sets) {
    return load_run_config(std::string(BNSIM_SOURCE_DIR) + "/configs/default.yaml", sets);
}

inline bn::ValidateOptions validate_options(const RunConfig& cfg) {
    bn::ValidateOptions vo;
    vo.scale_bias_operand_bits = cfg.numerics.scale_bias_operand_bits.value_or(cfg.hw.numerics.scale_bias_operand_bits);
    vo.tolerance_scale = cfg.numerics.tolerance_scale;
    vo.relu_kink = kernel_params<bn::Params>(cfg.kernel_params).relu_kink;
    vo.partitions = cfg.hw.sbuf.partitions;
    vo.sbuf_bytes_per_partition = cfg.hw.sbuf.usable_bytes_per_partition;
    return vo;
}

// The order the timing simulation runs the instructions in. SystemC elaborates once per
// process: a test case may use this runner once (other runs use run_sequential/run_dataflow).
inline num::Runner timing_runner(const RunConfig& cfg) {
    const HwConfig hw = cfg.hw;
    const SchedulePolicy policy = cfg.schedule;
    return [hw, policy](const Trace& t, ExecutionObserverIF& obs) {
        SimOptions so;
        so.policy = policy;
        so.observer = &obs;
        simulate(hw, t, so);
    };
}

// Validates the default config with overrides; by default in the timing simulation's order.
inline bn::ValidateResult validate(const Overrides& sets, num::Runner run = nullptr) {
    RunConfig cfg = numerics_config(sets);
    GeneratedKernel k = cfg.generate();
    const bn::Params& p = kernel_params<bn::Params>(cfg.kernel_params);
    bn::BnInputs in = bn::generate_inputs(p, p.inputs);
    if (!run) run = timing_runner(cfg);
    return bn::validate_batch_norm_bwd(k.trace, p, in, validate_options(cfg), run);
}

// A small shape: B x C x 16 x 16.
inline Overrides small(int64_t B, int64_t C, Overrides more = {}) {
    Overrides o{{"shape.B", std::to_string(B)}, {"shape.C", std::to_string(C)}, {"shape.H", "16"}, {"shape.W", "16"}};
    o.insert(o.end(), more.begin(), more.end());
    return o;
}

}  // namespace bnsim::test
