#pragma once
// The batch_norm_bwd NKI kernel as a trace generator: the same instruction stream the kernel
// emits, instruction for instruction (see docs/kernel-batch_norm_bwd.md).
#include "kernels/batch_norm_bwd/params.h"
#include "kernels/kernel_target.h"

namespace bnsim::bn {

// The tensor streams the generator's DMAs belong to, one queue each. The compiler's real queue
// assignment is not published; the numbers in the trace follow the rule the NKI frontend
// declares (docs/nki-frontend.md): per core, the tile streams numbered in order of first use,
// the per-channel column transfers on one queue after them (number_queues below).
enum Queue : uint16_t {
    kQueueDy = 0,
    kQueueX = 1,
    kQueueMask = 2,
    kQueueDirectXStore = 3,
    kQueueDirectXLoad = 4,
    kQueueDxStore = 5,
    kQueueColumns = 6,
};

// Roles of the instructions the kernel's numerics watch (Tag::role).
enum Role : uint16_t {
    kRoleNone = 0,
    kRoleLoadDy = 1,               // the unit's dy tile load
    kRoleApplyLoadedMask = 2,      // dy * (loaded mask)
    kRoleApplyRecomputedMask = 3,  // dy * (recomputed post_bn > 0)
};

GeneratedKernel generate(const Params& params, const KernelTarget& target);

}  // namespace bnsim::bn
