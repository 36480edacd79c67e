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
#include <map>
#include <tuple>

#include "trace/region_index.h"
#include "trace/trace.h"

namespace bnsim {
namespace {

using BufferKey = std::tuple<uint8_t, uint8_t, uint32_t>;  // issuing core, space, buffer

BufferKey key_of(uint8_t core, const Region& r) { return {core, uint8_t(r.space), r.buffer}; }

// One index per buffer, cut along every boundary the trace's regions use in it.
std::map<BufferKey, RegionIndex> make_indexes(const Trace& trace) {
    std::map<BufferKey, std::pair<std::vector<uint64_t>, std::vector<uint64_t>>> cuts;
    auto note = [&](uint8_t core, const Region& r) {
        auto& c = cuts[key_of(core, r)];
        c.first.push_back(r.row_lo);
        c.first.push_back(r.row_hi);
        c.second.push_back(r.byte_lo);
        c.second.push_back(r.byte_hi);
    };
    for (const auto& ins : trace.instructions()) {
        for (const auto& r : ins.reads()) note(ins.core, r);
        for (const auto& w : ins.writes()) note(ins.core, w);
    }
    std::map<BufferKey, RegionIndex> out;
    for (auto& [key, c] : cuts) out.emplace(key, RegionIndex(std::move(c.first), std::move(c.second)));
    return out;
}

}  // namespace

void derive_dependencies(Trace& trace) {
    auto indexes = make_indexes(trace);
    auto index_of = [&](uint8_t core, const Region& r) -> RegionIndex& { return indexes.at(key_of(core, r)); };
    for (auto& ins : trace.instructions()) {
        ins.deps.clear();
        const auto reads = ins.reads();
        const auto writes = ins.writes();
        auto edge = [&](uint32_t from) {
            if (from != ins.id) ins.deps.push_back(from);
        };
        // Edges against the state before this instruction.
        for (const auto& r : reads)
            index_of(ins.core, r).for_each_writer_candidate(r, [&](const RegionIndex::Access& a) {
                if (a.region.overlaps(r)) edge(a.instr);  // RAW
            });
        for (const auto& w : writes)
            index_of(ins.core, w).for_each_candidate(w, [&](const RegionIndex::Access& a) {
                if (a.region.overlaps(w)) edge(a.instr);  // WAW, WAR
            });
        // Then record this instruction's own accesses.
        for (const auto& r : reads) index_of(ins.core, r).add(r, ins.id, false);
        for (const auto& w : writes) {
            auto& index = index_of(ins.core, w);
            index.for_each_candidate(w, [&](RegionIndex::Access& a) {
                if (a.instr != ins.id && w.covers(a.region)) a.live = false;
            });
            index.add(w, ins.id, true);
        }
        std::sort(ins.deps.begin(), ins.deps.end());
        ins.deps.erase(std::unique(ins.deps.begin(), ins.deps.end()), ins.deps.end());
    }
}

}  // namespace bnsim
