#include "trace/dependents.h"

#include <stdexcept>
#include <string>

namespace bnsim {

Dependents::Dependents(const Trace& trace) {
    const auto& ins = trace.instructions();
    const size_t n = ins.size();
    dep_count_.assign(n, 0);
    off_.assign(n + 1, 0);
    // One pass over the instructions copies their edges into a compact list; the counting sort
    // that turns them around then reads only that list.
    std::vector<uint32_t> edge_from;  // edge k: instruction edge_from[k] waits for edge_to[k]
    std::vector<uint32_t> edge_to;
    core_of_.resize(n);
    engine_of_.resize(n);
    for (const auto& in : ins) {
        core_of_[in.id] = in.core;
        engine_of_[in.id] = in.engine;
        for (uint32_t d : in.deps) {
            if (d >= n) throw std::logic_error("instruction " + std::to_string(in.id) + " depends on unknown id");
            ++dep_count_[in.id];
            ++off_[d + 1];
            edge_from.push_back(in.id);
            edge_to.push_back(d);
        }
    }
    for (size_t k = 0; k < edge_from.size(); ++k)
        if (core_of_[edge_from[k]] != core_of_[edge_to[k]])
            throw std::logic_error("instruction " + std::to_string(edge_from[k]) + " depends on instruction " +
                                   std::to_string(edge_to[k]) + " of another core");
    for (size_t i = 0; i < n; ++i) off_[i + 1] += off_[i];
    ids_.resize(edge_from.size());
    std::vector<uint32_t> fill(off_.begin(), off_.end() - 1);
    for (size_t k = 0; k < edge_from.size(); ++k) ids_[fill[edge_to[k]]++] = edge_from[k];
}

}  // namespace bnsim
