#pragma once
// The DMA engines of every core on one HBM stack, advanced together. An engine's decisions (which
// queue's descriptor to start next, models/dma_engine.h) depend only on what has reached its
// queues, and a DMA reaches its queues dma.dispatch_ns or more after it is triggered; so at
// SystemC time `now` every descriptor that reaches a queue before now + dma.dispatch_ns has
// already been pushed. The scheduler's one SC_METHOD therefore makes all the engines' decisions
// due before that horizon in one activation, in time order (ties by engine), and sleeps until
// the time of the next decision (which it then makes with the dispatch window after it): one
// activation per dispatch window rather than one per descriptor, with the same decisions and
// the same time-ordered HBM reservations as an engine stepping through its descriptors one
// SystemC event at a time. Decisions are never made after their own time, so what they
// schedule (a DMA's start and finish records) is still in SystemC's future.
#include <memory>
#include <vector>

#include <systemc>

#include "models/decision_order.h"
#include "models/dma_engine.h"
#include "models/hbm.h"

namespace bnsim {

class DmaScheduler : public sc_core::sc_module {
public:
    SC_HAS_PROCESS(DmaScheduler);
    DmaScheduler(sc_core::sc_module_name name, const HwConfig& hw, Hbm& hbm);

    // A new engine served by the shared HBM; the scheduler owns it.
    DmaEngine& add_engine(const DmaLifecycle& rule, Sbuf& sbuf, DescriptorSinkIF& sink);
    // Queues a run of descriptors on `engine`, reaching its queue at reach_ns (>= now + dma.dispatch_ns).
    void push(DmaEngine& engine, const DmaRun& r, double reach_ns);
    // One descriptor: a run of one.
    void push(DmaEngine& engine, const DmaDescriptor& d, double reach_ns) { push(engine, DmaRun{d, 1, 0}, reach_ns); }

private:
    void advance();
    void arm(Ticks decision);

    TickClock clock_;
    Ticks lead_;         // no descriptor pushed at now reaches its queue before now + lead_
    Ticks horizon_ = 0;  // decisions before this have been made
    Hbm& hbm_;
    std::vector<std::unique_ptr<DmaEngine>> engines_;
    DecisionOrder order_;  // the engines' next decisions, mirrored in decision order
    sc_core::sc_event wake_;
};

}  // namespace bnsim
