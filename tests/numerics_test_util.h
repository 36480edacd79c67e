#pragma once
// Shared helpers of the numerics tests: load the default run config with overrides, generate
// the trace and inputs, and validate with a chosen runner.
#include <string>
#include <utility>
#include <vector>

#include "numerics/bn_validate.h"
#include "numerics/runners.h"
#include "sim/config/run_config.h"

namespace bnsim::test {

inline RunConfig numerics_config(const Overrides& sets) {
    return load_run_config(std::string(BNSIM_SOURCE_DIR) + "/configs/default.yaml", sets);
}

inline num::ValidateOptions validate_options(const RunConfig& cfg) {
    num::ValidateOptions vo;
    vo.scale_bias_operand_bits = cfg.numerics.scale_bias_operand_bits.value_or(cfg.hw.numerics.scale_bias_operand_bits);
    vo.tolerance_scale = cfg.numerics.tolerance_scale;
    vo.relu_kink = cfg.numerics.relu_kink;
    vo.partitions = cfg.hw.sbuf.partitions;
    vo.sbuf_bytes_per_partition = cfg.hw.sbuf.usable_bytes_per_partition;
    return vo;
}

inline num::ValidateResult validate(const Overrides& sets, const num::Runner& run = num::run_sequential) {
    RunConfig cfg = numerics_config(sets);
    GeneratedKernel k = cfg.generate();
    num::BnInputs in = num::generate_inputs(*cfg.batch_norm_bwd, cfg.numerics.inputs);
    return num::validate_batch_norm_bwd(k.trace, *cfg.batch_norm_bwd, in, validate_options(cfg), run);
}

// A small shape: B x C x 16 x 16.
inline Overrides small(int64_t B, int64_t C, Overrides more = {}) {
    Overrides o{{"shape.B", std::to_string(B)}, {"shape.C", std::to_string(C)}, {"shape.H", "16"}, {"shape.W", "16"}};
    o.insert(o.end(), more.begin(), more.end());
    return o;
}

}  // namespace bnsim::test
