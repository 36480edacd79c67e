#pragma once
// Run-config parsing of the calibration microbenchmarks (kernels/calibration): each reads the
// section named after its kernel, e.g. `vector_add: {n: 25600, partitions: 128, free: 2,
// dtype: float32, op: tensor_tensor}`.
#include "sim/config/config_node.h"
#include "sim/config/run_config.h"

namespace bnsim {

KernelBuilder parse_dma_copy(ConfigNode& top, RunConfig& cfg);
KernelBuilder parse_activation(ConfigNode& top, RunConfig& cfg);
KernelBuilder parse_vector_op(ConfigNode& top, RunConfig& cfg);
KernelBuilder parse_vector_add(ConfigNode& top, RunConfig& cfg);

}  // namespace bnsim
