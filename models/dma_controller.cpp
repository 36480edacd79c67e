#include "models/dma_controller.h"

#include <algorithm>
#include <string>

namespace bnsim {

DmaController::DmaController(sc_core::sc_module_name name, const CostModel& cost, const Trace& trace, Scoreboard& sb,
                             DmaScheduler& engines, Sbuf& sbuf)
    : sc_core::sc_module(name), rule_(cost.hw()), trace_(trace), sb_(sb), dge_(cost.hw().dma), scheduler_(engines),
      inflight_(trace.instructions().size()) {
    block_ = scheduler_.add_block(size_t(std::max(cost.hw().dma.engines_per_core, 0)), rule_, sbuf, *this);
    engines_ = scheduler_.block_engines(block_);
    SC_METHOD(tick);
    sensitive << ev_;
    dont_initialize();
}

void DmaController::trigger(uint32_t id) {
    const Instruction& ins = trace_.instructions()[id];
    ExecRecord& r = sb_.record(id);
    const DmaIssue is = rule_.issue(ins.dma.dge, ins.engine, r.ready_ns, now_ns(), dge_);
    r.issue_start_ns = is.start;
    r.issue_end_ns = is.end;
    InFlight& f = inflight_[id];
    f = InFlight{};
    ++in_flight_;
    // Mostly a [128, F] copy: the same run on every engine, queued once for all of them.
    DmaRun first;
    uint64_t lane_stride = 0;
    if (dma_runs_alike(ins, trace_, rule_.hw(), &first, &lane_stride)) {
        f.remaining = first.count * uint32_t(engines_.size());
        scheduler_.push_alike(block_, first, lane_stride, is.dispatch);
        return;
    }
    runs_.clear();
    for_each_run(ins, trace_, rule_.hw(), [&](const DmaRun& r) {
        f.remaining += r.count;
        runs_.push_back(r);
    });
    scheduler_.push_dma(block_, runs_.data(), runs_.size(), is.dispatch);
    if (f.remaining == 0) actions_.at(is.dispatch, [this, id] { dispatch_empty(id); });
}

void DmaController::dispatch_empty(uint32_t id) {
    const double now = now_ns();
    sb_.start(id, now);
    sb_.record(id).data_end_ns = now;
    --in_flight_;
    actions_.at(rule_.completion_at(now), [this, id] { sb_.finish(id, now_ns()); });
}

void DmaController::run_started(uint32_t id, double start_ns) {
    InFlight& f = inflight_[id];
    if (!f.started) {
        // Decided ahead of SystemC time: record the start when SystemC gets there.
        f.started = true;
        actions_.at(start_ns, [this, id, start_ns] { sb_.start(id, start_ns); });
    }
}

void DmaController::run_moved(uint32_t id, uint32_t count, double landed_ns) {
    InFlight& f = inflight_[id];
    f.last_land = std::max(f.last_land, landed_ns);
    f.remaining -= count;
    if (f.remaining == 0) {
        sb_.record(id).data_end_ns = f.last_land;
        const double done = rule_.completion_at(f.last_land);
        --in_flight_;
        actions_.at(done, [this, id] { sb_.finish(id, now_ns()); });
    }
}

}  // namespace bnsim
