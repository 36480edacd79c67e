#pragma once
// Watches the instructions that apply the ReLU mask (by their Tag::role) and records, for every
// element, the mask value the kernel actually used, mapped back to [B, C, spatial] through the
// unit's dy load.
#include <map>
#include <utility>
#include <vector>

#include "kernels/batch_norm_bwd/params.h"
#include "numerics/executor.h"
#include "trace/execution_observer.h"

namespace bnsim::bn {

class MaskProbe : public ExecutionObserverIF {
public:
    MaskProbe(num::FunctionalExecutor& ex, const Params& p);
    void on_start(const Instruction& ins, double) override;
    void on_finish(const Instruction&, double) override {}
    // 0/1 per element; 2 where no mask was ever applied.
    std::vector<uint8_t> take_mask() { return std::move(mask_); }

private:
    num::FunctionalExecutor& ex_;
    const Params& p_;
    std::map<std::pair<int, int>, Region> dy_src_;  // (core, unit) -> the dy tile's HBM region
    std::vector<uint8_t> mask_;
};

}  // namespace bnsim::bn
