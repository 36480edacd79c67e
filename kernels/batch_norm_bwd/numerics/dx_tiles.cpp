#include "kernels/batch_norm_bwd/numerics/dx_tiles.h"

#include "kernels/batch_norm_bwd/sharding.h"

namespace bnsim::bn {

DxTiles::DxTiles(const Shape& s, uint64_t row_bytes) : shape_(s), row_bytes_(row_bytes) {
    const size_t tiles = size_t((s.C + kPMax - 1) / kPMax);
    pages_.resize(tiles);
    rows_.resize(tiles);
    rows_in_.assign(tiles, 0);
}

std::vector<int> DxTiles::add(uint64_t lo, uint64_t hi, std::unique_ptr<uint8_t[]> data, uint64_t page_bytes) {
    auto page = std::make_shared<Page>();
    page->data = std::move(data);
    page->bytes = page_bytes;
    page->held = &held_;
    held_ += page_bytes;
    std::vector<int> done;
    for (uint64_t r = lo; r < hi; ++r) {
        const int64_t b = int64_t(r) / shape_.C, c = int64_t(r) % shape_.C;
        const int k = int(c / kPMax);
        const int64_t ck = ctile_size(shape_, k);
        auto& rows = rows_[size_t(k)];
        if (rows.empty()) rows.assign(size_t(shape_.B * ck), nullptr);
        rows[size_t(b * ck + c - ctile_start(k))] = page->data ? page->data.get() + (r - lo) * row_bytes_ : nullptr;
        auto& pages = pages_[size_t(k)];
        if (pages.empty() || pages.back() != page) pages.push_back(page);
        if (++rows_in_[size_t(k)] == shape_.B * ck) done.push_back(k);
    }
    return done;
}

const uint8_t* DxTiles::row(int k, int64_t b, int64_t c) const {
    return rows_.at(size_t(k)).at(size_t(b * ctile_size(shape_, k) + c));
}

void DxTiles::release(int k) {
    pages_.at(size_t(k)) = {};
    rows_.at(size_t(k)) = {};
}

}  // namespace bnsim::bn
