#pragma once
// The kernel's dx in a streamed validation: the HBM pages of dx as the run makes them final, kept
// (not copied) until every channel tile with rows in a page has been checked. The up-front
// estimate walks the same bookkeeping with pages that hold no data, so both count the same bytes.
#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/batch_norm_bwd/params.h"

namespace bnsim::bn {

class DxTiles {
public:
    DxTiles(const Shape& s, uint64_t row_bytes);
    DxTiles(const DxTiles&) = delete;
    DxTiles& operator=(const DxTiles&) = delete;

    // Rows [lo, hi) of dx (row = b*C + c) in `page` (page_bytes long; null when no data is
    // held). Returns the channel tiles whose rows are now all in.
    std::vector<int> add(uint64_t lo, uint64_t hi, std::unique_ptr<uint8_t[]> page, uint64_t page_bytes);
    // Row b of channel c of tile k (c counted from the tile's first channel).
    const uint8_t* row(int k, int64_t b, int64_t c) const;
    // Lets go of tile k's rows (a page goes when no unchecked tile has rows in it).
    void release(int k);
    uint64_t held_bytes() const { return held_; }

private:
    struct Page {
        std::unique_ptr<uint8_t[]> data;
        uint64_t bytes = 0;
        uint64_t* held = nullptr;
        ~Page() { *held -= bytes; }
    };
    Shape shape_;
    uint64_t row_bytes_;
    uint64_t held_ = 0;  // before pages_: the pages' destructors count it down
    std::vector<std::vector<std::shared_ptr<Page>>> pages_;  // per tile, the pages with its rows
    std::vector<std::vector<const uint8_t*>> rows_;          // per tile, [B, tile channels]
    std::vector<int64_t> rows_in_;
};

}  // namespace bnsim::bn
