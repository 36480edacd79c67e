// Dependency derivation: the same rule the NKI compiler applies to tile accesses.
//
// For every (core, space, buffer) we keep the accesses still "live": the writers not yet fully
// overwritten and the readers since. A new access is checked against the live accesses it
// overlaps, and a write that covers an older access retires it (later accesses reach it
// transitively through the new writer). Readers that no single later write covers (columns read
// by every tile, say) stay live for the whole trace, so the live accesses are kept in a
// RegionIndex: each access visits only those filed where it lies, and derivation stays linear
// in the trace length instead of scanning thousands of unrelated live readers per write.
#include <algorithm>
#include <unordered_map>

#include "trace/region_index.h"
#include "trace/trace.h"

namespace bnsim {
namespace {

// The buffer an access lies in, as the issuing core sees it: core, space, buffer.
uint64_t key_of(uint8_t core, const Region& r) {
    return uint64_t(core) << 40 | uint64_t(r.space) << 32 | uint64_t(r.buffer);
}

// Every access of the trace (each instruction's reads, then its writes, in program order) with
// the index of the buffer it lies in, and one RegionIndex per buffer cut along every boundary
// the trace's regions use in it. Numbering the buffers once here spares the main pass a keyed
// lookup for each of the five times it touches an access's index.
struct Buffers {
    std::vector<uint32_t> slot;  // per access, in visiting order
    std::vector<RegionIndex> index;

    explicit Buffers(const Trace& trace) {
        std::unordered_map<uint64_t, uint32_t> slot_of;
        std::vector<std::vector<uint64_t>> row_cuts, byte_cuts;
        uint64_t last_key = ~uint64_t(0);
        uint32_t last_slot = 0;
        auto note = [&](uint8_t core, const Region& r) {
            const uint64_t key = key_of(core, r);
            if (key != last_key) {  // most accesses fall in the same buffer (the core's SBUF)
                const auto [it, fresh] = slot_of.emplace(key, uint32_t(row_cuts.size()));
                if (fresh) {
                    row_cuts.emplace_back();
                    byte_cuts.emplace_back();
                }
                last_key = key;
                last_slot = it->second;
            }
            slot.push_back(last_slot);
            // Consecutive accesses to a buffer often share a boundary pair (a tile read by the
            // instruction after the one that wrote it, every full-height SBUF region's
            // partitions): noting a pair once spares RegionIndex sorting the repeats.
            auto note_pair = [](std::vector<uint64_t>& cuts, uint64_t lo, uint64_t hi) {
                const size_t n = cuts.size();
                if (n >= 2 && cuts[n - 2] == lo && cuts[n - 1] == hi) return;
                cuts.push_back(lo);
                cuts.push_back(hi);
            };
            note_pair(row_cuts[last_slot], r.row_lo, r.row_hi);
            note_pair(byte_cuts[last_slot], r.byte_lo, r.byte_hi);
        };
        for (const auto& ins : trace.instructions()) {
            ins.for_each_read([&](const Region& r) { note(ins.core, r); });
            ins.for_each_write([&](const Region& w) { note(ins.core, w); });
        }
        index.reserve(row_cuts.size());
        for (size_t b = 0; b < row_cuts.size(); ++b) index.emplace_back(std::move(row_cuts[b]), std::move(byte_cuts[b]));
    }
};

}  // namespace

void derive_dependencies(Trace& trace) {
    Buffers buffers(trace);
    size_t next_access = 0;
    // One instruction's accesses: region, its buffer's index and where it lies there (found
    // once, used by the queries and the add). Reused from instruction to instruction.
    struct Access {
        Region region;
        RegionIndex* index;
        RegionIndex::Place where;
    };
    std::vector<Access> reads, writes;
    // The instruction's edges, sorted and made unique here before deps gets them in one
    // allocation (growing deps edge by edge reallocated several times per instruction).
    std::vector<uint32_t> edges;
    auto locate = [&](const Region& r) {
        RegionIndex* index = &buffers.index[buffers.slot[next_access++]];
        return Access{r, index, index->place(r)};
    };
    for (auto& ins : trace.instructions()) {
        edges.clear();
        reads.clear();
        writes.clear();
        ins.for_each_read([&](const Region& r) { reads.push_back(locate(r)); });
        ins.for_each_write([&](const Region& w) { writes.push_back(locate(w)); });
        auto edge = [&](uint32_t from) {
            if (from != ins.id) edges.push_back(from);
        };
        // Edges against the state before this instruction.
        for (const auto& r : reads)
            r.index->for_each_writer_candidate(r.region, r.where, [&](const RegionIndex::Access& a) {
                if (a.region.overlaps(r.region)) edge(a.instr);  // RAW
            });
        for (const auto& w : writes)
            w.index->for_each_candidate(w.region, w.where, [&](const RegionIndex::Access& a) {
                if (a.region.overlaps(w.region)) edge(a.instr);  // WAW, WAR
            });
        // Then record this instruction's own accesses.
        for (const auto& r : reads) r.index->add(r.region, r.where, ins.id, false);
        for (const auto& w : writes) {
            w.index->for_each_candidate(w.region, w.where, [&](RegionIndex::Access& a) {
                if (a.instr != ins.id && w.region.covers(a.region)) a.live = false;
            });
            w.index->add(w.region, w.where, ins.id, true);
        }
        std::sort(edges.begin(), edges.end());
        edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
        ins.deps.assign(edges.begin(), edges.end());
    }
}

}  // namespace bnsim
