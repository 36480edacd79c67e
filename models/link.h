#pragma once
// The link between the two physical cores of an LNC=2 pair. A sendrecv is a rendezvous: each
// core's instruction posts when its engine reaches it with its dependencies met; the k-th
// sendrecv from core a to core b on a pipe matches the k-th from b to a on the same pipe. When
// both have posted, the swap takes link.latency_ns + bytes / bandwidth, where a transfer of at
// most link.gpsimd_path_max_free_elems elements per partition takes the GpSimd-DMA path (SBUF
// to SBUF at link.gpsimd_dma_bandwidth_gbps) and larger ones the link's own bandwidth. Both
// instructions finish together.
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <systemc>

#include "models/action_queue.h"
#include "models/cost_model.h"
#include "models/scoreboard.h"

namespace bnsim {

class Link : public sc_core::sc_module {
public:
    SC_HAS_PROCESS(Link);
    Link(sc_core::sc_module_name name, const CostModel& cost, const Trace& trace, Scoreboard& sb);

    // Sendrecv `id` is ready on its core.
    void post(uint32_t id);

    // Sendrecvs posted whose peer never came: "id waits for core N's sendrecv on pipe P".
    std::vector<std::pair<uint32_t, std::string>> unmatched() const;

    double busy_ns() const { return busy_ns_; }
    uint64_t transfers() const { return transfers_; }
    uint64_t gpsimd_transfers() const { return gpsimd_transfers_; }
    uint64_t bytes() const { return bytes_; }

private:
    using Key = std::tuple<uint8_t, uint8_t, uint8_t>;  // from core, to core, pipe
    void tick() { actions_.run_due(); }

    const CostModel& cost_;
    const Trace& trace_;
    Scoreboard& sb_;
    std::map<Key, std::deque<uint32_t>> waiting_;
    sc_core::sc_event ev_;
    ActionQueue actions_{ev_};
    double busy_ns_ = 0;
    uint64_t transfers_ = 0, gpsimd_transfers_ = 0, bytes_ = 0;
};

}  // namespace bnsim
