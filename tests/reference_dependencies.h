#pragma once
// The dependency derivation as it was before trace/dependencies.cpp indexed live accesses by
// region: every access scans all live accesses of its buffer. Quadratic, but obviously the
// rule; the tests hold the indexed derivation to exactly the edges this one derives.
#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

#include "trace/trace.h"

namespace bnsim::test {

// deps[i] = sorted ids instruction i waits for.
inline std::vector<std::vector<uint32_t>> reference_dependencies(const Trace& trace) {
    struct Access {
        Region region;
        uint32_t instr;
    };
    struct BufferState {
        std::vector<Access> writers, readers;
    };
    using Key = std::tuple<uint8_t, uint8_t, uint32_t>;
    auto key_of = [](uint8_t core, const Region& r) { return Key{core, uint8_t(r.space), r.buffer}; };
    std::map<Key, BufferState> state;
    std::vector<std::vector<uint32_t>> out;
    for (const auto& ins : trace.instructions()) {
        std::vector<uint32_t> deps;
        auto edge = [&](uint32_t from) {
            if (from != ins.id) deps.push_back(from);
        };
        const auto reads = ins.reads();
        const auto writes = ins.writes();
        for (const auto& r : reads)
            for (const auto& w : state[key_of(ins.core, r)].writers)
                if (w.region.overlaps(r)) edge(w.instr);
        for (const auto& w : writes) {
            auto& st = state[key_of(ins.core, w)];
            for (const auto& a : st.writers)
                if (a.region.overlaps(w)) edge(a.instr);
            for (const auto& a : st.readers)
                if (a.region.overlaps(w)) edge(a.instr);
        }
        for (const auto& r : reads) state[key_of(ins.core, r)].readers.push_back({r, ins.id});
        for (const auto& w : writes) {
            auto& st = state[key_of(ins.core, w)];
            auto retired = [&](const Access& a) { return a.instr != ins.id && w.covers(a.region); };
            st.writers.erase(std::remove_if(st.writers.begin(), st.writers.end(), retired), st.writers.end());
            st.readers.erase(std::remove_if(st.readers.begin(), st.readers.end(), retired), st.readers.end());
            st.writers.push_back({w, ins.id});
        }
        std::sort(deps.begin(), deps.end());
        deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
        out.push_back(std::move(deps));
    }
    return out;
}

}  // namespace bnsim::test
