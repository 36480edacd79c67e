#pragma once
// The `numerics:` section of a run config: how `bnsim validate` runs the kernel on real data.
// Every key is optional. The generic keys are read here:
//
//   numerics:
//     precision:
//       scale_bias_operand_bits: hardware   # or 1..24 (24 = exact fp32); hardware = numerics.
//                                           # scale_bias_operand_bits of the hardware preset
//     tolerances: {scale: 1.0}              # multiplies every derived tolerance
//     memory_limit_bytes: auto              # refuse shapes needing more (auto: MemAvailable)
//     streaming: auto                       # auto: stream a shape whose tensors exceed the
//                                           # limit; always (for tests); never: refuse it
//
// and the kernel's numerics entry reads its own keys of the same section (inputs' seed and
// distributions, precision what-ifs that change its trace, kernel-specific tolerances; see the
// kernel's folder). A kernel without numerics accepts only the generic keys.
#include <any>
#include <cstdint>
#include <optional>

#include "configfile/config_node.h"
#include "kernels/kernel_entry.h"

namespace bnsim {

struct NumericsConfig {
    std::optional<int> scale_bias_operand_bits;  // nullopt: the hardware preset's
    double tolerance_scale = 1.0;
    uint64_t memory_limit_bytes = 0;  // 0: auto
    enum class Streaming { automatic, always, never } streaming = Streaming::automatic;
    bool present = false;             // the section was given
};

// Reads `numerics:` from the top level (absent: defaults), handing the kernel's own keys to its
// numerics entry, which stores them in its params. Unknown keys are errors.
NumericsConfig parse_numerics_config(ConfigNode& top, const KernelEntry& kernel, std::any& kernel_params);

}  // namespace bnsim
