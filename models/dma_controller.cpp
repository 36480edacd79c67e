#include "models/dma_controller.h"

#include <algorithm>
#include <string>

namespace bnsim {

DmaController::DmaController(sc_core::sc_module_name name, const CostModel& cost, const Trace& trace, Scoreboard& sb,
                             HbmIF& hbm, Sbuf& sbuf)
    : sc_core::sc_module(name), cost_(cost), trace_(trace), sb_(sb), dge_(cost.hw().dma) {
    for (int e = 0; e < cost.hw().dma.engines_per_core; ++e)
        engines_.push_back(std::make_unique<DmaEngine>(("engine" + std::to_string(e)).c_str(), cost, hbm, sbuf, *this));
    SC_METHOD(tick);
    sensitive << ev_;
    dont_initialize();
}

void DmaController::trigger(uint32_t id) {
    const Instruction& ins = trace_.instructions()[id];
    const double now = now_ns();
    ExecRecord& r = sb_.record(id);
    double dispatch_at;
    if (ins.dma.dge == DgeMode::hardware) {
        auto [s, e] = dge_.issue(now);
        r.issue_start_ns = s;
        r.issue_end_ns = e;
        dispatch_at = e + cost_.hw().dma.dispatch_ns;
    } else if (ins.dma.dge == DgeMode::none) {
        // Descriptors pre-generated: the trigger hands the queue over directly.
        r.issue_start_ns = now;
        r.issue_end_ns = now;
        dispatch_at = now + cost_.hw().dma.dispatch_ns;
    } else {
        // Software DGE: the Pool stream generated the descriptors before triggering.
        r.issue_start_ns = r.ready_ns;
        r.issue_end_ns = now;
        dispatch_at = now + cost_.hw().dma.dispatch_ns;
    }
    inflight_[id] = InFlight{};
    actions_.at(dispatch_at, [this, id] { dispatch(id); });
}

void DmaController::dispatch(uint32_t id) {
    const Instruction& ins = trace_.instructions()[id];
    auto descs = split_dma(ins, trace_, cost_.hw());
    InFlight& f = inflight_[id];
    f.remaining = uint32_t(descs.size());
    if (descs.empty()) {
        const double now = now_ns();
        sb_.start(id, now);
        sb_.record(id).data_end_ns = now;
        inflight_.erase(id);
        actions_.at(now + cost_.hw().dma.completion_ns, [this, id] { sb_.finish(id, now_ns()); });
        return;
    }
    for (const auto& d : descs) engines_[d.engine]->push(d);
}

void DmaController::descriptor_started(const DmaDescriptor& d, double start_ns, double landed_ns) {
    InFlight& f = inflight_[d.dma];
    if (!sb_.record(d.dma).started()) sb_.start(d.dma, start_ns);
    f.last_land = std::max(f.last_land, landed_ns);
    if (--f.remaining == 0) {
        const uint32_t id = d.dma;
        sb_.record(id).data_end_ns = f.last_land;
        const double done = f.last_land + cost_.hw().dma.completion_ns;
        inflight_.erase(id);
        actions_.at(done, [this, id] { sb_.finish(id, now_ns()); });
    }
}

}  // namespace bnsim
