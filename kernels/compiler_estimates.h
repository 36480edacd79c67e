#pragma once
// The compiler's unpublished choices a kernel's trace depends on, declared once as estimates with
// the ranges their evidence spans (docs/nki-frontend.md): the NKI frontend and the C++ calibration
// kernels that follow its rules report them under their own run-config keys.
#include <string>

#include "kernels/kernel_target.h"

namespace bnsim {

// Rotating buffers of a tile allocated in an affine_range/static_range body.
KernelEstimate loop_buffers_estimate(const std::string& key, int value);
// Copies of a tile whose values stay in one loop iteration.
KernelEstimate rename_copies_estimate(const std::string& key, int value);

}  // namespace bnsim
