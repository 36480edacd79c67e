#pragma once
// The reverse of a trace's dependency edges: for each instruction, the instructions that wait for
// it, in program order, in one flat array. The list scheduler and the scoreboard both walk an
// instruction's dependents when it finishes. Built once per run from the deps lists, it spares
// each of them its own two passes over every instruction's deps: at C=1024 the trace is 12 MB,
// more than the caches hold, and each such pass fetched all of it from memory again.
#include <cstdint>
#include <vector>

#include "trace/trace.h"

namespace bnsim {

class Dependents {
public:
    // Throws std::logic_error if a dependency names an unknown instruction or one on another
    // core (derived edges never cross cores: cores meet only in collectives such as sendrecv).
    explicit Dependents(const Trace& trace);

    // The instructions that list `id` among their deps, in program order.
    const uint32_t* begin(uint32_t id) const { return ids_.data() + off_[id]; }
    const uint32_t* end(uint32_t id) const { return ids_.data() + off_[id + 1]; }
    // How many dependencies `id` waits for (its deps.size()).
    uint32_t dep_count(uint32_t id) const { return dep_count_[id]; }
    // Each instruction's core and engine, which a walk of the edges reads for every successor:
    // here a byte each, where the 384-byte instruction is a cache line away from the last.
    uint8_t core(uint32_t id) const { return core_of_[id]; }
    Engine engine(uint32_t id) const { return engine_of_[id]; }

private:
    std::vector<uint32_t> dep_count_;
    std::vector<uint8_t> core_of_;
    std::vector<Engine> engine_of_;
    std::vector<uint32_t> off_, ids_;  // CSR: ids_[off_[d] .. off_[d + 1]) depend on d
};

}  // namespace bnsim
