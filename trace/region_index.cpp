#include "trace/region_index.h"

#include <algorithm>

namespace bnsim {

void RegionIndex::Axis::span(uint64_t lo, uint64_t hi, size_t& first, size_t& last) {
    if (memo.empty()) memo.resize(size_t(1) << kMemoBits);
    Memo& m = memo[((lo * 0x9E3779B97F4A7C15ull) ^ (hi * 0xC2B2AE3D27D4EB4Full)) >> (64 - kMemoBits)];
    if (m.lo == lo && m.hi == hi) {
        first = m.first;
        last = m.last;
        return;
    }
    const size_t nb = buckets();
    auto bucket = [&](uint64_t x) {
        const size_t above = size_t(std::upper_bound(cuts.begin(), cuts.end(), x) - cuts.begin());
        return std::min(above == 0 ? 0 : above - 1, nb - 1);
    };
    first = bucket(lo);
    last = bucket(hi - 1) + 1;
    m = {lo, hi, uint32_t(first), uint32_t(last)};
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
    const size_t n = rows_.buckets() * bytes_.buckets();
    for (int k = 0; k < 2; ++k) {
        heads_[k].assign(n, kNil);
        occupied_[k].assign((n + 63) / 64, 0);
    }
}

void RegionIndex::reserve(size_t accesses) {
    accesses_.reserve(accesses);
    nodes_.reserve(accesses);
}

RegionIndex::Place RegionIndex::place(const Region& r) {
    Place s;
    s.degenerate = is_degenerate(r);
    if (s.degenerate) return s;
    rows_.span(r.row_lo, r.row_hi, s.r0, s.r1);
    bytes_.span(r.byte_lo, r.byte_hi, s.b0, s.b1);
    return s;
}

uint32_t RegionIndex::new_node(uint32_t access, uint32_t next) {
    if (free_ != kNil) {
        const uint32_t n = free_;
        free_ = nodes_[n].next;
        nodes_[n] = {access, next};
        return n;
    }
    nodes_.push_back({access, next});
    return uint32_t(nodes_.size() - 1);
}

void RegionIndex::add(const Region& r, const Place& s, uint32_t instr, bool writer) {
    const uint32_t id = uint32_t(accesses_.size());
    Access a;
    a.region = r;
    a.instr = instr;
    a.writer = writer;
    accesses_.push_back(a);
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
    auto& heads = heads_[kind];
    for (size_t i = s.r0; i < s.r1; ++i)
        for (size_t c = i * nb + s.b0; c < i * nb + s.b1; ++c) {
            heads[c] = new_node(id, heads[c]);
            occupied_[kind][c >> 6] |= uint64_t(1) << (c & 63);
        }
}

}  // namespace bnsim
