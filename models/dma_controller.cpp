#include "models/dma_controller.h"

#include <algorithm>
#include <string>

namespace bnsim {

DmaController::DmaController(sc_core::sc_module_name name, const CostModel& cost, const Trace& trace, Scoreboard& sb,
                             HbmIF& hbm, Sbuf& sbuf)
    : sc_core::sc_module(name), rule_(cost.hw()), trace_(trace), sb_(sb), dge_(cost.hw().dma),
      inflight_(trace.instructions().size()) {
    for (int e = 0; e < cost.hw().dma.engines_per_core; ++e)
        engines_.push_back(std::make_unique<DmaEngine>(("engine" + std::to_string(e)).c_str(), rule_, hbm, sbuf, *this));
    SC_METHOD(tick);
    sensitive << ev_;
    dont_initialize();
}

void DmaController::trigger(uint32_t id) {
    const Instruction& ins = trace_.instructions()[id];
    ExecRecord& r = sb_.record(id);
    const DmaIssue is = rule_.issue(ins.dma.dge, r.ready_ns, now_ns(), dge_);
    r.issue_start_ns = is.start;
    r.issue_end_ns = is.end;
    inflight_[id] = InFlight{};
    ++in_flight_;
    actions_.at(is.dispatch, [this, id] { dispatch(id); });
}

void DmaController::dispatch(uint32_t id) {
    InFlight& f = inflight_[id];
    for_each_descriptor(trace_.instructions()[id], trace_, rule_.hw(), [&](const DmaDescriptor& d) {
        ++f.remaining;
        engines_[d.engine]->push(d);
    });
    if (f.remaining == 0) {
        const double now = now_ns();
        sb_.start(id, now);
        sb_.record(id).data_end_ns = now;
        --in_flight_;
        actions_.at(rule_.completion_at(now), [this, id] { sb_.finish(id, now_ns()); });
    }
}

void DmaController::descriptor_started(const DmaDescriptor& d, double start_ns, double landed_ns) {
    InFlight& f = inflight_[d.dma];
    if (!sb_.record(d.dma).started()) sb_.start(d.dma, start_ns);
    f.last_land = std::max(f.last_land, landed_ns);
    if (--f.remaining == 0) {
        const uint32_t id = d.dma;
        sb_.record(id).data_end_ns = f.last_land;
        const double done = rule_.completion_at(f.last_land);
        --in_flight_;
        actions_.at(done, [this, id] { sb_.finish(id, now_ns()); });
    }
}

}  // namespace bnsim
