#pragma once
// Watches the instructions that apply the ReLU mask (by their Tag::role) and records, for every
// element, the mask value the kernel actually used, mapped back to [B, C, spatial] through the
// unit's dy load. Kept per channel tile ([B, tile channels, spatial]), so a streamed run holds
// only the tiles whose checks have not run yet.
#include <map>
#include <utility>
#include <vector>

#include "kernels/batch_norm_bwd/params.h"
#include "numerics/executor.h"
#include "trace/execution_observer.h"

namespace bnsim::bn {

// The mask applied per channel tile: [B, tile channels, spatial], 0/1 per element, 2 where no
// mask was ever applied (a tile is made on first use, all 2).
class MaskTiles {
public:
    explicit MaskTiles(const Shape& s = {});
    std::vector<uint8_t>& tile(int k);
    void release(int k) { tiles_.at(size_t(k)) = {}; }

private:
    Shape shape_;
    std::vector<std::vector<uint8_t>> tiles_;
};

class MaskProbe : public ExecutionObserverIF {
public:
    MaskProbe(num::FunctionalExecutor& ex, const Params& p);
    void on_start(const Instruction& ins, double) override;
    void on_finish(const Instruction&, double) override {}
    MaskTiles& record() { return record_; }
    MaskTiles take_record() { return std::move(record_); }

private:
    num::FunctionalExecutor& ex_;
    const Params& p_;
    std::map<std::pair<int, int>, Region> dy_src_;  // (core, unit) -> the dy tile's HBM region
    MaskTiles record_;
};

}  // namespace bnsim::bn
