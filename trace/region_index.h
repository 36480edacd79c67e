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
//
// A cell's accesses are a singly linked list through one shared pool of nodes: filing is a push
// at the head, a retired access is unlinked when a query next passes it and its node reused, so
// the index allocates only when the pool or the access table grows.
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
        uint32_t seen = 0;  // last query that visited it (an index sees far fewer than 2^32)
        bool writer = false;
        bool live = true;
    };

    // `row_cuts` and `byte_cuts`: every boundary the buffer's regions will use (any order,
    // duplicates allowed). Regions with boundaries outside these still work, only slower.
    RegionIndex(std::vector<uint64_t> row_cuts, std::vector<uint64_t> byte_cuts);

    // Room for this many accesses (filed in up to kWideCells cells each) without reallocating.
    void reserve(size_t accesses);

    // Where a region lies in the grid: rows [r0, r1) x byte buckets [b0, b1), or degenerate
    // (empty along an axis). Finding it costs two binary searches, so a caller that both
    // queries and adds one region finds it once with place() and passes it along.
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
        // Spans already asked for, direct-mapped by (lo, hi): the accesses to a buffer reuse a
        // few hundred boundary pairs (its tiles and columns) thousands of times, and a miss costs
        // two binary searches over up to thousands of cuts. Only span() fills it, after the cuts
        // are final.
        struct Memo {
            uint64_t lo = 1, hi = 0;  // empty: no span [lo, hi) with lo < hi is asked for
            uint32_t first = 0, last = 0;
        };
        static constexpr int kMemoBits = 8;
        std::vector<Memo> memo;
    };

    static constexpr uint32_t kNil = ~uint32_t(0);
    struct Node {
        uint32_t access;  // id into accesses_
        uint32_t next;    // next node of the cell's list (or of the free list), kNil at the end
    };

    Axis rows_, bytes_;
    std::vector<Access> accesses_;
    std::vector<Node> nodes_;
    uint32_t free_ = kNil;  // unlinked nodes, reused before the pool grows
    enum Kind { kReaders = 0, kWriters = 1 };
    std::vector<uint32_t> heads_[2];  // per kind, per cell (row-major): its list's first node
    // Per kind, a bit per cell, set while its list may hold nodes: a query skips the empty cells a
    // word at a time (a wide tile spans hundreds of the narrow column cells other regions cut).
    std::vector<uint64_t> occupied_[2];
    std::vector<uint32_t> degenerate_[2];  // per kind: accesses empty along an axis
    // Per kind, accesses spanning more than kWideCells cells (whole tiles over a grid that
    // column-sized regions cut finely): kept on one list every query scans, since filing them in
    // each cell would cost adds and queries hundreds of cells apiece. Few are live at a time.
    std::vector<uint32_t> wide_[2];
    static constexpr size_t kWideCells = 16;
    uint32_t query_ = 0;

    static bool is_degenerate(const Region& r) { return r.row_hi <= r.row_lo || r.byte_hi <= r.byte_lo; }
    uint32_t new_node(uint32_t access, uint32_t next);
    // Calls f(cell index) for every occupied grid cell of `kind` in the place's span.
    template <typename F>
    void for_each_occupied_cell(Kind kind, const Place& s, F&& f);
    // Visits the candidates of a query lying at `s` among the accesses of `kind`; the caller
    // starts the query.
    template <typename F>
    void visit_kind(Kind kind, const Place& s, F& f);
    // Visits a side list, dropping retired ids as it goes.
    template <typename F>
    void visit(std::vector<uint32_t>& ids, F& f);
    // Visits a cell's list, unlinking retired accesses as it goes; false once it is empty.
    template <typename F>
    bool visit_cell(uint32_t& head, F& f);
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
bool RegionIndex::visit_cell(uint32_t& head, F& f) {
    uint32_t* link = &head;
    while (*link != kNil) {
        const uint32_t n = *link;
        Access& a = accesses_[nodes_[n].access];
        if (a.live && a.seen != query_) {
            a.seen = query_;
            f(a);
        }
        if (a.live) {
            link = &nodes_[n].next;
        } else {
            *link = nodes_[n].next;
            nodes_[n].next = free_;
            free_ = n;
        }
    }
    return head != kNil;
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
    if (!degenerate_[kind].empty()) visit(degenerate_[kind], f);
    if (!wide_[kind].empty()) visit(wide_[kind], f);
    auto& heads = heads_[kind];
    auto cell = [&](size_t c) {
        if (!visit_cell(heads[c], f)) occupied_[kind][c >> 6] &= ~(uint64_t(1) << (c & 63));
    };
    if (s.degenerate) {
        for (size_t c = 0; c < heads.size(); ++c) cell(c);
        return;
    }
    for_each_occupied_cell(kind, s, cell);
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
