#pragma once
// The `numerics:` section of a run config: how `bnsim validate` makes its inputs, the precision
// what-ifs it runs the kernel with, and its tolerances. Every key is optional:
//
//   numerics:
//     seed: 1
//     x_in: {distribution: normal, mean: 0.0, spread: 1.0}   # normal: spread = std deviation
//     dy:   {distribution: normal, mean: 0.0, spread: 1.0}   # uniform: mean +- spread
//     gamma: {min: 0.5, max: 1.5}                            # uniform per channel
//     beta:  {min: -0.5, max: 0.5}
//     precision:                        # what-ifs; defaults are the kernel's choices
//       dyx_product: float32            # dtype of the dy'*x_in product tile (bfloat16 | float32)
//       intermediates: bfloat16         # direct_x, var_x, loaded mask, rebuilt post_bn
//       scale_bias_operand_bits: hardware   # or 1..24 (24 = exact fp32); hardware = numerics.
//                                           # scale_bias_operand_bits of the hardware preset
//     tolerances: {scale: 1.0, relu_kink: 1.0e-5}
//     memory_limit_bytes: auto          # refuse shapes needing more (auto: MemAvailable)
#include <cstdint>
#include <optional>

#include "numerics/inputs.h"
#include "configfile/config_node.h"

namespace bnsim {

struct RunConfig;

struct NumericsConfig {
    num::InputSpec inputs;
    DType dyx_dtype = DType::fp32;
    DType intermediates_dtype = DType::bf16;
    std::optional<int> scale_bias_operand_bits;  // nullopt: the hardware preset's
    double tolerance_scale = 1.0;
    double relu_kink = 1e-5;
    uint64_t memory_limit_bytes = 0;  // 0: auto
    bool present = false;             // the section was given
};

// Reads `numerics:` from the top level (absent: defaults). Unknown keys are errors.
NumericsConfig parse_numerics_config(ConfigNode& top);

// Hands the what-ifs that change the kernel's instruction stream (the product and intermediates
// dtypes) to its parameters; call after the kernel was parsed.
void apply_numerics_to_kernel(RunConfig& cfg);

}  // namespace bnsim
