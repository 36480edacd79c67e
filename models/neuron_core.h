#pragma once
// One physical NeuronCore: its SBUF, its DMA controller (hardware DGE units and 16 DMA engines)
// and its five instruction engines, each running its scheduled stream. The HBM stack and the
// inter-core link are shared with the pair and passed in.
#include <array>
#include <memory>
#include <vector>

#include <systemc>

#include "models/dma_controller.h"
#include "models/dma_scheduler.h"
#include "models/instruction_engine.h"
#include "models/link.h"
#include "models/sbuf.h"
#include "trace/engine_streams.h"

namespace bnsim {

// Per-engine instruction streams of one core, in execution order.

class NeuronCore : public sc_core::sc_module {
public:
    NeuronCore(sc_core::sc_module_name name, uint8_t core, const CoreStreams& streams, const CostModel& cost,
               const Trace& trace, Scoreboard& sb, DmaScheduler& dma_engines, Link* link);

    uint8_t index() const { return core_; }
    Sbuf& sbuf() { return sbuf_; }
    const Sbuf& sbuf() const { return sbuf_; }
    const DmaController& dma() const { return dma_; }
    const InstructionEngine& engine(Engine e) const { return *engines_[size_t(e)]; }

private:
    uint8_t core_;
    Sbuf sbuf_;
    DmaController dma_;
    std::vector<std::unique_ptr<InstructionEngine>> engines_;
};

}  // namespace bnsim
