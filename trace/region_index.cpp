#include "trace/region_index.h"

#include <algorithm>

namespace bnsim {

void RegionIndex::Axis::span(uint64_t lo, uint64_t hi, size_t& first, size_t& last) {
    if (memo_set && lo == memo_lo && hi == memo_hi) {
        first = memo_first;
        last = memo_last;
        return;
    }
    const size_t nb = buckets();
    auto bucket = [&](uint64_t x) {
        const size_t above = size_t(std::upper_bound(cuts.begin(), cuts.end(), x) - cuts.begin());
        return std::min(above == 0 ? 0 : above - 1, nb - 1);
    };
    first = bucket(lo);
    last = bucket(hi - 1) + 1;
    memo_set = true;
    memo_lo = lo;
    memo_hi = hi;
    memo_first = first;
    memo_last = last;
}

void RegionIndex::Axis::coarsen() {
    memo_set = false;
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
    const size_t n = rows_.buckets() * bytes_.buckets();
    for (int k = 0; k < 2; ++k) {
        cells_[k].resize(n);
        occupied_[k].assign((n + 63) / 64, 0);
    }
}

RegionIndex::Place RegionIndex::place(const Region& r) {
    Place s;
    s.degenerate = is_degenerate(r);
    if (s.degenerate) return s;
    rows_.span(r.row_lo, r.row_hi, s.r0, s.r1);
    bytes_.span(r.byte_lo, r.byte_hi, s.b0, s.b1);
    return s;
}

void RegionIndex::add(const Region& r, const Place& s, uint32_t instr, bool writer) {
    const uint32_t id = uint32_t(accesses_.size());
    accesses_.push_back({r, instr, writer, true, 0});
    const Kind kind = writer ? kWriters : kReaders;
    if (s.degenerate) {
        degenerate_[kind].push_back(id);
        return;
    }
    if (s.cells() > kWideCells) {
        wide_[kind].push_back(id);
        return;
    }
    const size_t nb = bytes_.buckets();
    for (size_t i = s.r0; i < s.r1; ++i)
        for (size_t c = i * nb + s.b0; c < i * nb + s.b1; ++c) {
            cells_[kind][c].push_back(id);
            occupied_[kind][c >> 6] |= uint64_t(1) << (c & 63);
        }
}

}  // namespace bnsim
