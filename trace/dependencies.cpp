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

// A buffer's cut values as the trace's regions use them, with most repeats dropped on the way
// in: a tile's boundaries recur for every access to it (thousands of times in a long trace),
// and sorting them all only to drop them again was most of setting up an index. A value is
// dropped when the small table of recent values holds it; duplicates that slip through are
// harmless (RegionIndex sorts and uniques its cuts).
class CutSet {
public:
    void note(uint64_t v) {
        uint64_t& slot = recent_[(v * 0x9E3779B97F4A7C15ull) >> (64 - kRecentBits)];
        if (slot == v + 1) return;  // stored +1, so the zeroed table holds nothing
        slot = v + 1;
        values_.push_back(v);
    }
    std::vector<uint64_t> take() { return std::move(values_); }

private:
    static constexpr int kRecentBits = 8;
    uint64_t recent_[size_t(1) << kRecentBits] = {};
    std::vector<uint64_t> values_;
};

// Every access of the trace (each instruction's reads, then its writes, in program order) with
// the index of the buffer it lies in, and one RegionIndex per buffer cut along every boundary
// the trace's regions use in it. Numbering the buffers once here spares the main pass a keyed
// lookup for each of the times it touches an access's index. The accesses themselves are kept
// too, so the main pass reads them from here, not from the instructions a second time: at
// C=1024 the instructions and their operand lists are 17 MB, more than the caches hold.
struct Buffers {
    std::vector<uint32_t> slot;      // per access, in visiting order
    std::vector<Region> region;      // per access, in visiting order
    std::vector<uint32_t> reads;     // per instruction: how many of its accesses are reads
    std::vector<uint32_t> writes;    // ... and writes
    std::vector<RegionIndex> index;

    explicit Buffers(const Trace& trace) {
        std::unordered_map<uint64_t, uint32_t> slot_of;
        std::vector<CutSet> row_cuts, byte_cuts;
        std::vector<size_t> accesses;
        uint64_t last_key = ~uint64_t(0);
        uint32_t last_slot = 0;
        slot.reserve(trace.size() * 2);
        auto note = [&](uint8_t core, const Region& r) {
            const uint64_t key = key_of(core, r);
            if (key != last_key) {  // consecutive accesses often fall in the same buffer
                const auto [it, fresh] = slot_of.try_emplace(key, uint32_t(row_cuts.size()));
                if (fresh) {
                    row_cuts.emplace_back();
                    byte_cuts.emplace_back();
                    accesses.push_back(0);
                }
                last_key = key;
                last_slot = it->second;
            }
            slot.push_back(last_slot);
            region.push_back(r);
            ++accesses[last_slot];
            row_cuts[last_slot].note(r.row_lo);
            row_cuts[last_slot].note(r.row_hi);
            byte_cuts[last_slot].note(r.byte_lo);
            byte_cuts[last_slot].note(r.byte_hi);
        };
        region.reserve(trace.size() * 2);
        reads.reserve(trace.size());
        writes.reserve(trace.size());
        for (const auto& ins : trace.instructions()) {
            uint32_t nr = 0, nw = 0;
            ins.for_each_read([&](const Region& r) {
                note(ins.core, r);
                ++nr;
            });
            ins.for_each_write([&](const Region& w) {
                note(ins.core, w);
                ++nw;
            });
            reads.push_back(nr);
            writes.push_back(nw);
        }
        index.reserve(row_cuts.size());
        for (size_t b = 0; b < row_cuts.size(); ++b) {
            index.emplace_back(row_cuts[b].take(), byte_cuts[b].take());
            index.back().reserve(accesses[b]);
        }
    }
};

}  // namespace

void derive_dependencies(Trace& trace) {
    Buffers buffers(trace);
    size_t next_access = 0;
    // One instruction's accesses: region, its buffer's index and where it lies there (found
    // once, used by the query and the add). Reused from instruction to instruction.
    struct Access {
        Region region;
        RegionIndex* index;
        RegionIndex::Place where;
    };
    std::vector<Access> reads, writes;
    // The instruction's edges, sorted and made unique here before deps gets them in one
    // allocation (growing deps edge by edge reallocated several times per instruction).
    std::vector<uint32_t> edges;
    auto locate = [&]() {
        const Region& r = buffers.region[next_access];
        RegionIndex* index = &buffers.index[buffers.slot[next_access++]];
        return Access{r, index, index->place(r)};
    };
    auto& instructions = trace.instructions();
    for (size_t i = 0; i < instructions.size(); ++i) {
        edges.clear();
        reads.clear();
        writes.clear();
        for (uint32_t k = 0; k < buffers.reads[i]; ++k) reads.push_back(locate());
        for (uint32_t k = 0; k < buffers.writes[i]; ++k) writes.push_back(locate());
        Instruction& ins = instructions[i];
        // Edges against the state before this instruction: a read waits for the live writers
        // it overlaps (RAW), a write for every live access it overlaps (WAW, WAR).
        for (const auto& r : reads)
            r.index->for_each_writer_candidate(r.region, r.where, [&](const RegionIndex::Access& a) {
                if (a.region.overlaps(r.region)) edges.push_back(a.instr);
            });
        // A write also retires the live accesses it covers, in the same visit: what it covers it
        // overlaps (or the access is empty and overlaps nothing), so its edge is already taken
        // and no later query of this instruction could have found another one through it. This
        // instruction's own accesses are filed only afterwards, so none of them is retired.
        for (const auto& w : writes)
            w.index->for_each_candidate(w.region, w.where, [&](RegionIndex::Access& a) {
                if (a.region.overlaps(w.region)) edges.push_back(a.instr);
                if (w.region.covers(a.region)) a.live = false;
            });
        for (const auto& r : reads) r.index->add(r.region, r.where, ins.id, false);
        for (const auto& w : writes) w.index->add(w.region, w.where, ins.id, true);
        std::sort(edges.begin(), edges.end());
        edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
        ins.deps.assign(edges.begin(), edges.end());
    }
    trace.deps_derived = true;
}

}  // namespace bnsim
