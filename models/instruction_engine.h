#pragma once
// One instruction-issuing engine of a core (Sync/SP, ACT, DVE, POOL, PE; the enum Engine names
// which). It executes its scheduled stream strictly in order. The head instruction waits on its
// cross-engine dependencies (the hardware semaphores, kept by the Scoreboard); then
//  - a compute instruction occupies the engine for its cost-model time;
//  - a DMA trigger occupies it for the trigger (plus software descriptor generation on the
//    Pool stream) and hands the DMA to the DMA controller: the stream does not wait for it;
//  - a sendrecv is triggered, posted to the Link, and the stream waits for the swap to finish.
// Event-driven: one SC_METHOD re-armed for the end of the current instruction or woken by the
// scoreboard when the head's dependencies are met; nothing runs while the engine waits.
#include <cstdint>
#include <string>
#include <vector>

#include <systemc>

#include "models/act_reduce_registers.h"
#include "models/cost_model.h"
#include "models/dma_controller.h"
#include "models/link.h"
#include "models/sbuf.h"
#include "models/scoreboard.h"

namespace bnsim {

class InstructionEngine : public sc_core::sc_module, public WakeIF {
public:
    SC_HAS_PROCESS(InstructionEngine);
    InstructionEngine(sc_core::sc_module_name name, Engine kind, uint8_t core, std::vector<uint32_t> stream,
                      const CostModel& cost, const Trace& trace, Scoreboard& sb, Sbuf& sbuf, DmaController& dma,
                      Link* link);

    void wake() override { ev_.notify(sc_core::SC_ZERO_TIME); }

    Engine engine_kind() const { return kind_; }
    uint8_t core() const { return core_; }
    bool done() const { return pos_ >= stream_.size(); }
    // The instruction at the head of the stream (valid when !done()).
    uint32_t head() const { return stream_[pos_]; }
    const std::vector<uint32_t>& stream() const { return stream_; }

    // Time the engine was active: the union of its instructions' spans, start to result written.
    double busy_ns() const { return busy_ns_; }
    double wait_ns() const { return wait_ns_; }
    uint64_t executed() const { return executed_; }
    const ActReduceRegisters& reduce_registers() const { return regs_; }

private:
    enum class State { Idle, WaitDeps, WaitSemaphore, Busy, WaitFinish };
    enum class Work { Compute, Trigger, Post };
    void step();
    void complete(double t);

    Engine kind_;
    uint8_t core_;
    std::vector<uint32_t> stream_;
    const CostModel& cost_;
    const Trace& trace_;
    Scoreboard& sb_;
    Sbuf& sbuf_;
    DmaController& dma_;
    Link* link_;
    ActReduceRegisters regs_;

    size_t pos_ = 0;
    State state_ = State::Idle;
    Work work_ = Work::Compute;
    double busy_until_ = 0;
    double active_until_ = 0;           // the latest result-written time of the engine's instructions
    double semaphore_until_ = 0;        // WaitSemaphore: when the head's inputs are visible
    CostModel::EngineState cost_state_;  // e.g. the ACT function table loaded
    sc_core::sc_event ev_;
    double busy_ns_ = 0, wait_ns_ = 0;
    uint64_t executed_ = 0;
};

}  // namespace bnsim
