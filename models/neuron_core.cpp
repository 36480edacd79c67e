#include "models/neuron_core.h"

namespace bnsim {

NeuronCore::NeuronCore(sc_core::sc_module_name name, uint8_t core, const CoreStreams& streams, const CostModel& cost,
                       const Trace& trace, Scoreboard& sb, DmaScheduler& dma_engines, Link* link)
    : sc_core::sc_module(name), core_(core), sbuf_("sbuf", cost.hw().sbuf, core),
      dma_("dma", cost, trace, sb, dma_engines, sbuf_) {
    for (Engine e : kAllEngines)
        engines_.push_back(std::make_unique<InstructionEngine>(engine_name(e), e, core, streams[size_t(e)], cost,
                                                               trace, sb, sbuf_, dma_, link));
}

}  // namespace bnsim
