#include "models/dma_scheduler.h"

#include <algorithm>
#include <stdexcept>

namespace bnsim {

DmaScheduler::DmaScheduler(sc_core::sc_module_name name, const HwConfig& hw, Hbm& hbm)
    : sc_core::sc_module(name), hbm_(hbm) {
    // One tick less than the dispatch latency: a reach time rounded to ticks may fall a tick early.
    const Ticks dispatch = clock_.delay(hw.dma.dispatch_ns);
    lead_ = dispatch > 0 ? dispatch - 1 : 0;
    SC_METHOD(advance);
    sensitive << wake_;
    dont_initialize();
}

DmaEngine& DmaScheduler::add_engine(const DmaLifecycle& rule, Sbuf& sbuf, DescriptorSinkIF& sink) {
    engines_.push_back(std::make_unique<DmaEngine>(rule, clock_, hbm_, sbuf, sink, engines_.size()));
    order_.add();
    return *engines_.back();
}

void DmaScheduler::push(DmaEngine& engine, const DmaRun& r, double reach_ns) {
    const Ticks reach = clock_.delay(reach_ns);
    if (reach < horizon_)
        throw std::logic_error("DMA " + std::to_string(r.first.dma) + " reaches its queue before decisions already made");
    engine.push(r, reach);
    if (engine.next() != order_.time(engine.index())) {
        order_.set(engine.index(), engine.next());
        arm(engine.next());
    }
}

void DmaScheduler::arm(Ticks decision) {
    // The decision at t can be made once SystemC time passes t - lead_ (no later push reaches a
    // queue by t) and must be made by t: wake at t, the latest, to make the most of the window.
    const Ticks now = sc_core::sc_time_stamp().value();
    const Ticks at = std::max(now, lead_ > 0 ? decision : decision + 1);
    if (at == now)
        wake_.notify(sc_core::SC_ZERO_TIME);
    else
        wake_.notify(sc_core::sc_time::from_value(at - now));
}

void DmaScheduler::advance() {
    horizon_ = sc_core::sc_time_stamp().value() + lead_;
    for (;;) {
        const Ticks t = order_.first_time();
        if (t >= horizon_) {
            if (t != kNever) arm(t);
            return;
        }
        order_.decide_run([this](size_t e) {
            engines_[e]->decide();
            return engines_[e]->next();
        });
    }
}

}  // namespace bnsim
