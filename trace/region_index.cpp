#include "trace/region_index.h"

#include <algorithm>

namespace bnsim {

void RegionIndex::Axis::span(uint64_t lo, uint64_t hi, size_t& first, size_t& last) const {
    const size_t nb = buckets();
    auto bucket = [&](uint64_t x) {
        const size_t above = size_t(std::upper_bound(cuts.begin(), cuts.end(), x) - cuts.begin());
        return std::min(above == 0 ? 0 : above - 1, nb - 1);
    };
    first = bucket(lo);
    last = bucket(hi - 1) + 1;
}

void RegionIndex::Axis::coarsen() {
    std::vector<uint64_t> kept;
    for (size_t i = 0; i < cuts.size(); i += 2) kept.push_back(cuts[i]);
    if (kept.back() != cuts.back()) kept.push_back(cuts.back());
    cuts.swap(kept);
}

RegionIndex::RegionIndex(std::vector<uint64_t> row_cuts, std::vector<uint64_t> byte_cuts) {
    for (auto* a : {&row_cuts, &byte_cuts}) {
        std::sort(a->begin(), a->end());
        a->erase(std::unique(a->begin(), a->end()), a->end());
    }
    rows_.cuts = std::move(row_cuts);
    bytes_.cuts = std::move(byte_cuts);
    while (rows_.buckets() * bytes_.buckets() > kMaxCells)
        (rows_.buckets() >= bytes_.buckets() ? rows_ : bytes_).coarsen();
    for (auto& cells : cells_) cells.resize(rows_.buckets() * bytes_.buckets());
}

void RegionIndex::add(const Region& r, uint32_t instr, bool writer) {
    const uint32_t id = uint32_t(accesses_.size());
    accesses_.push_back({r, instr, writer, true, 0});
    const Kind kind = writer ? kWriters : kReaders;
    if (is_degenerate(r)) {
        degenerate_[kind].push_back(id);
        return;
    }
    for_each_cell(kind, r, [id](std::vector<uint32_t>& cell) { cell.push_back(id); });
}

}  // namespace bnsim
