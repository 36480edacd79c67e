// Dependency derivation: the same rule the NKI compiler applies to tile accesses.
//
// For every (core, space, buffer) we keep the accesses still "live": the writers not yet fully
// overwritten and the readers since. A new access is checked against those rectangles only,
// and a write that covers an older access retires it (later accesses reach it transitively
// through the new writer), so each list stays about as long as the number of distinct tiles
// in flight rather than growing with the trace.
#include <algorithm>
#include <map>
#include <tuple>

#include "trace/trace.h"

namespace bnsim {
namespace {

struct Access {
    Region region;
    uint32_t instr;
};

struct BufferState {
    std::vector<Access> writers;
    std::vector<Access> readers;
};

using BufferKey = std::tuple<uint8_t, uint8_t, uint32_t>;  // core, space, buffer

BufferKey key_of(uint8_t core, const Region& r) { return {core, uint8_t(r.space), r.buffer}; }

void add_edge(std::vector<uint32_t>& deps, uint32_t from, uint32_t self) {
    if (from != self) deps.push_back(from);
}

}  // namespace

void derive_dependencies(Trace& trace) {
    std::map<BufferKey, BufferState> state;
    for (auto& ins : trace.instructions()) {
        ins.deps.clear();
        const auto reads = ins.reads();
        const auto writes = ins.writes();
        // Edges against the state before this instruction.
        for (const auto& r : reads) {
            auto& st = state[key_of(ins.core, r)];
            for (const auto& w : st.writers)
                if (w.region.overlaps(r)) add_edge(ins.deps, w.instr, ins.id);  // RAW
        }
        for (const auto& w : writes) {
            auto& st = state[key_of(ins.core, w)];
            for (const auto& a : st.writers)
                if (a.region.overlaps(w)) add_edge(ins.deps, a.instr, ins.id);  // WAW
            for (const auto& a : st.readers)
                if (a.region.overlaps(w)) add_edge(ins.deps, a.instr, ins.id);  // WAR
        }
        // Then record this instruction's own accesses.
        for (const auto& r : reads) state[key_of(ins.core, r)].readers.push_back({r, ins.id});
        for (const auto& w : writes) {
            auto& st = state[key_of(ins.core, w)];
            auto retired = [&](const Access& a) { return a.instr != ins.id && w.covers(a.region); };
            st.writers.erase(std::remove_if(st.writers.begin(), st.writers.end(), retired),
                             st.writers.end());
            st.readers.erase(std::remove_if(st.readers.begin(), st.readers.end(), retired),
                             st.readers.end());
            st.writers.push_back({w, ins.id});
        }
        std::sort(ins.deps.begin(), ins.deps.end());
        ins.deps.erase(std::unique(ins.deps.begin(), ins.deps.end()), ins.deps.end());
    }
}

}  // namespace bnsim
