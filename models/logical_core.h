#pragma once
// The top of the model: a logical NeuronCore (LNC) of one or two physical cores sharing one HBM
// stack (and so one DmaScheduler advancing all their DMA engines), joined by the inter-core link
// when there are two.
#include <memory>
#include <vector>

#include <systemc>

#include "models/dma_scheduler.h"
#include "models/hbm.h"
#include "models/link.h"
#include "models/neuron_core.h"

namespace bnsim {

class LogicalCore : public sc_core::sc_module {
public:
    LogicalCore(sc_core::sc_module_name name, const std::vector<CoreStreams>& streams, const CostModel& cost,
                const Trace& trace, Scoreboard& sb);

    const Hbm& hbm() const { return hbm_; }
    const Link* link() const { return link_.get(); }
    const std::vector<std::unique_ptr<NeuronCore>>& cores() const { return cores_; }

private:
    Hbm hbm_;
    DmaScheduler dma_engines_;
    std::unique_ptr<Link> link_;
    std::vector<std::unique_ptr<NeuronCore>> cores_;
};

}  // namespace bnsim
