#pragma once
// The DMA side of a core: takes a triggered dma_copy through its lifecycle —
// issue (a hardware DGE unit, software descriptor generation already paid on the Pool
// stream, or none for pre-generated descriptors) -> dispatch latency -> descriptors on the 16 engines' queues -> the last descriptor
// lands -> completion latency -> the semaphore the consumers wait on (scoreboard finish).
// The descriptors are handed to the engines (models/dma_scheduler.h) at the trigger, with the
// time they reach the queues.
#include <cstdint>
#include <vector>

#include <systemc>

#include "models/action_queue.h"
#include "models/cost_model.h"
#include "models/dge.h"
#include "models/dma_lifecycle.h"
#include "models/dma_engine.h"
#include "models/dma_scheduler.h"
#include "models/scoreboard.h"

namespace bnsim {

class DmaController : public sc_core::sc_module, public DescriptorSinkIF {
public:
    SC_HAS_PROCESS(DmaController);
    DmaController(sc_core::sc_module_name name, const CostModel& cost, const Trace& trace, Scoreboard& sb,
                  DmaScheduler& engines, Sbuf& sbuf);

    // The issuing engine's stream has triggered DMA `id` at now.
    void trigger(uint32_t id);

    void run_started(uint32_t dma, double start_ns) override;
    void run_moved(uint32_t dma, uint32_t count, double landed_ns) override;

    const std::vector<DmaEngine*>& engines() const { return engines_; }
    const Dge& dge() const { return dge_; }
    // DMAs triggered but not finished, for the no-progress report.
    size_t in_flight() const { return in_flight_; }

private:
    // Indexed by instruction id: a lookup per run, so a flat table rather than a map.
    struct InFlight {
        uint32_t remaining = 0;
        bool started = false;
        double last_land = 0;
    };
    void dispatch_empty(uint32_t id);  // a DMA without descriptors reached its queue
    void tick() { actions_.run_due(); }

    const DmaLifecycle rule_;
    const Trace& trace_;
    Scoreboard& sb_;
    Dge dge_;
    DmaScheduler& scheduler_;
    size_t block_ = 0;                 // this core's engines in the scheduler
    std::vector<DmaEngine*> engines_;  // this core's, owned by the scheduler
    std::vector<DmaRun> runs_;         // the DMA being triggered, run by run
    std::vector<InFlight> inflight_;
    size_t in_flight_ = 0;
    sc_core::sc_event ev_;
    ActionQueue actions_{ev_};
};

}  // namespace bnsim
