#pragma once
// The live accesses of one buffer (a core's SBUF, its reduce registers, or an HBM tensor),
// indexed by where they lie, so that finding the accesses a new region may touch costs about
// as much as the accesses it really touches, not the number still alive.
//
// The buffer is cut into a grid along the boundaries its regions actually use (the `cuts` given
// up front: every row_lo/row_hi and byte_lo/byte_hi of the trace's regions in this buffer). A
// grid cell then lies wholly inside or wholly outside any region, so the accesses filed under
// the cells a query touches are, up to duplicates, exactly the ones it overlaps. When a buffer
// has more distinct cuts than kMaxCells allows, neighbouring cells are merged: candidates may
// then include near misses, which is why callers still apply Region::overlaps/covers.
//
// Regions empty along an axis are kept on a side list every query scans (and an empty query
// scans everything), so that even degenerate rectangles get exactly Region's overlap semantics.
//
// Readers and writers are filed apart: a read only depends on writers, and the readers of a
// column every tile reads (never retired, as no later write covers them) would otherwise be
// rescanned by every later read of it.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "trace/region.h"

namespace bnsim {

class RegionIndex {
public:
    struct Access {
        Region region;
        uint32_t instr = 0;
        bool writer = false;
        bool live = true;
        uint64_t seen = 0;  // last query that visited it
    };

    // `row_cuts` and `byte_cuts`: every boundary the buffer's regions will use (any order,
    // duplicates allowed). Regions with boundaries outside these still work, only slower.
    RegionIndex(std::vector<uint64_t> row_cuts, std::vector<uint64_t> byte_cuts);

    // Where a region lies in the grid: rows [r0, r1) x byte buckets [b0, b1), or degenerate
    // (empty along an axis). Finding it costs two binary searches, so a caller that both
    // queries and adds one region (the dependency pass: up to three calls per access) finds it
    // once with place() and passes it along.
    struct Place {
        size_t r0 = 0, r1 = 0, b0 = 0, b1 = 0;
        bool degenerate = true;
        size_t cells() const { return (r1 - r0) * (b1 - b0); }
    };
    // Not thread-safe: each axis remembers its last answer (an index belongs to one pass).
    Place place(const Region& r);

    void add(const Region& r, uint32_t instr, bool writer) { add(r, place(r), instr, writer); }
    void add(const Region& r, const Place& where, uint32_t instr, bool writer);

    // Calls f(Access&) once for every live access that may overlap or be covered by `q`: a
    // superset of those that do. f may retire the access (set live = false).
    template <typename F>
    void for_each_candidate(const Region& q, F&& f) {
        for_each_candidate(q, place(q), f);
    }
    template <typename F>
    void for_each_candidate(const Region& q, const Place& where, F&& f);
    // The same over the live writers only.
    template <typename F>
    void for_each_writer_candidate(const Region& q, F&& f) {
        for_each_writer_candidate(q, place(q), f);
    }
    template <typename F>
    void for_each_writer_candidate(const Region& q, const Place& where, F&& f);

    static constexpr size_t kMaxCells = size_t(1) << 16;

private:
    struct Axis {
        std::vector<uint64_t> cuts;  // sorted, unique; bucket i = [cuts[i], cuts[i+1])
        size_t buckets() const { return cuts.size() < 2 ? 1 : cuts.size() - 1; }
        // Buckets [first, last) holding some of [lo, hi); lo < hi.
        void span(uint64_t lo, uint64_t hi, size_t& first, size_t& last);
        void coarsen();  // merges neighbouring buckets pairwise
        // The last span asked for and its answer: consecutive accesses often lie on the same
        // rows or bytes (a full-height SBUF tile, the tile the previous instruction wrote), and
        // the answer is two binary searches over up to thousands of cuts. Only span() sets it,
        // after the cuts are final.
        bool memo_set = false;
        uint64_t memo_lo = 0, memo_hi = 0;
        size_t memo_first = 0, memo_last = 0;
    };

    Axis rows_, bytes_;
    std::vector<Access> accesses_;
    enum Kind { kReaders = 0, kWriters = 1 };
    std::vector<std::vector<uint32_t>> cells_[2];  // per kind: ids into accesses_, row-major
    // Per kind, a bit per cell, set while its list may hold ids: a query skips the empty cells a
    // word at a time (a wide tile spans hundreds of the narrow column cells other regions cut).
    std::vector<uint64_t> occupied_[2];
    std::vector<uint32_t> degenerate_[2];  // per kind: accesses empty along an axis
    // Per kind, accesses spanning more than kWideCells cells (whole tiles over a grid that
    // column-sized regions cut finely): kept on one list every query scans, since filing them in
    // each cell would cost adds and queries hundreds of cells apiece. Few are live at a time.
    std::vector<uint32_t> wide_[2];
    static constexpr size_t kWideCells = 16;
    uint64_t query_ = 0;

    static bool is_degenerate(const Region& r) { return r.row_hi <= r.row_lo || r.byte_hi <= r.byte_lo; }
    // Calls f(cell index) for every occupied grid cell of `kind` in the place's span.
    template <typename F>
    void for_each_occupied_cell(Kind kind, const Place& s, F&& f);
    // Visits the candidates of a query lying at `s` among the accesses of `kind`; the caller
    // starts the query.
    template <typename F>
    void visit_kind(Kind kind, const Place& s, F& f);
    // Visits a list, dropping retired ids as it goes.
    template <typename F>
    void visit(std::vector<uint32_t>& ids, F& f);
};

template <typename F>
void RegionIndex::visit(std::vector<uint32_t>& ids, F& f) {
    size_t kept = 0;
    for (size_t k = 0; k < ids.size(); ++k) {
        Access& a = accesses_[ids[k]];
        if (!a.live) continue;
        if (a.seen != query_) {
            a.seen = query_;
            f(a);
        }
        if (a.live) ids[kept++] = ids[k];
    }
    ids.resize(kept);
}

template <typename F>
void RegionIndex::for_each_occupied_cell(Kind kind, const Place& s, F&& f) {
    const size_t nb = bytes_.buckets();
    const auto& bits = occupied_[kind];
    for (size_t i = s.r0; i < s.r1; ++i) {
        size_t c = i * nb + s.b0;
        const size_t end = i * nb + s.b1;
        while (c < end) {
            const uint64_t word = bits[c >> 6] >> (c & 63);
            if (word == 0) {
                c = ((c >> 6) + 1) << 6;
                continue;
            }
            c += size_t(__builtin_ctzll(word));
            if (c >= end) break;
            f(c);
            ++c;
        }
    }
}

template <typename F>
void RegionIndex::visit_kind(Kind kind, const Place& s, F& f) {
    visit(degenerate_[kind], f);
    visit(wide_[kind], f);
    auto& cells = cells_[kind];
    auto visit_cell = [&](size_t c) {
        visit(cells[c], f);
        if (cells[c].empty()) occupied_[kind][c >> 6] &= ~(uint64_t(1) << (c & 63));
    };
    if (s.degenerate) {
        for (size_t c = 0; c < cells.size(); ++c) visit_cell(c);
        return;
    }
    for_each_occupied_cell(kind, s, visit_cell);
}

template <typename F>
void RegionIndex::for_each_candidate(const Region&, const Place& where, F&& f) {
    ++query_;
    visit_kind(kReaders, where, f);
    visit_kind(kWriters, where, f);
}

template <typename F>
void RegionIndex::for_each_writer_candidate(const Region&, const Place& where, F&& f) {
    ++query_;
    visit_kind(kWriters, where, f);
}

}  // namespace bnsim
