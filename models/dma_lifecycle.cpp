#include "models/dma_lifecycle.h"

#include <algorithm>
#include <limits>
#include <tuple>

namespace bnsim {

uint32_t DmaPlan::descriptors() const {
    uint32_t n = 0;
    for (const auto& t : trains) n += t.descriptors;
    return n;
}

DmaPlan DmaLifecycle::plan(const Instruction& ins, const Trace& trace) const {
    DmaPlan p;
    p.dma = ins.id;
    p.queue = ins.dma.queue;
    p.dge = ins.dma.dge;
    p.issuer = ins.engine;
    p.shape = dma_row_shape(ins);
    std::vector<DmaTrain> by_engine(size_t(hw_.dma.engines_per_core));
    // Engines mostly get alike runs: a train of one run sums as the last such train did.
    uint32_t summed_count = 0, summed_bytes = 0;
    double summed = 0;
    for_each_run(ins, trace, hw_, [&](const DmaRun& r) {
        DmaTrain& t = by_engine[r.first.engine];
        t.descriptors += r.count;
        if (t.work_ns == 0 && r.count == summed_count && r.first.bytes == summed_bytes) {
            t.work_ns = summed;
            return;
        }
        const bool fresh = t.work_ns == 0;
        // Summed descriptor by descriptor, as the engine spends it (n additions, not n x ns).
        const uint32_t per_packet = packet_rows(r.first.bytes, r.count);
        for (uint32_t k = 0; k < r.count; ++k) t.work_ns += row_ns(r.first.bytes, k, per_packet);
        if (fresh) {
            summed_count = r.count;
            summed_bytes = r.first.bytes;
            summed = t.work_ns;
        }
    });
    p.trains.reserve(size_t(std::count_if(by_engine.begin(), by_engine.end(),
                                          [](const DmaTrain& t) { return t.descriptors > 0; })));
    for (size_t e = 0; e < by_engine.size(); ++e)
        if (by_engine[e].descriptors) {
            by_engine[e].engine = uint16_t(e);
            p.trains.push_back(by_engine[e]);
        }
    return p;
}

const DmaPlan& DmaPlanner::plan(const Instruction& ins, const Trace& trace) {
    const HwConfig& hw = rule_.hw();
    const DmaRowSource src = dma_row_source(ins, trace, hw);
    Key key;
    key.rows = src.shape.rows;
    key.desc_bytes = src.shape.desc_bytes;
    key.hbm_bytes = src.shape.hbm_bytes;
    key.hbm = src.tensor != nullptr;
    key.merge = hw.dma.merge_contiguous_rows && key.hbm && uint64_t(src.shape.hbm_bytes) == src.tensor->row_bytes;
    // for_each_run's closed form: addresses play no part in the runs' counts and bytes.
    const bool closed_form =
        uint64_t(key.rows) <= uint64_t(hw.dma.rows_per_engine) * uint64_t(hw.dma.engines_per_core) &&
        (!key.merge || uint64_t(key.rows) * key.hbm_bytes <= UINT32_MAX);
    if (closed_form && have_ && key == key_) {
        last_.dma = ins.id;
        last_.queue = ins.dma.queue;
        last_.dge = ins.dma.dge;
        last_.issuer = ins.engine;
        last_.shape = src.shape;
        return last_;
    }
    last_ = rule_.plan(ins, trace);
    have_ = closed_form;
    key_ = key;
    return last_;
}

DmaIssue DmaLifecycle::issue(DgeMode mode, Engine issuer, double stream_ready, double triggered, Dge& dge) const {
    DmaIssue r;
    if (mode == DgeMode::hardware) {
        std::tie(r.start, r.end) = dge.issue(triggered, issuer);
        r.dispatch = r.end + hw_.dma.dispatch_ns;
        return r;
    }
    // Pre-generated descriptors: the trigger hands the queue over directly. Software DGE: the
    // Pool stream generated the descriptors between reaching the DMA and triggering it.
    r.start = mode == DgeMode::none ? triggered : stream_ready;
    r.end = triggered;
    r.dispatch = triggered + hw_.dma.dispatch_ns;
    return r;
}

double DmaLifecycle::fixed_ns(DgeMode mode) const {
    double ns = hw_.dma.dispatch_ns + hw_.dma.completion_ns;
    if (mode == DgeMode::hardware) ns += hw_.dma.issue_ns;
    return ns;
}

IdealDmaTimeline::IdealDmaTimeline(const DmaLifecycle& rule)
    : rule_(rule), dge_(rule.hw().dma), engine_free_(size_t(rule.hw().dma.engines_per_core), 0.0),
      queue_next_(size_t(rule.hw().dma.engines_per_core) * size_t(rule.hw().dma.queues_per_engine), 0.0),
      engine_busy_(size_t(rule.hw().dma.engines_per_core), 0.0),
      engine_descriptors_(size_t(rule.hw().dma.engines_per_core), 0) {}

DmaTimes IdealDmaTimeline::run(const DmaPlan& p, double stream_ready, double triggered) {
    DmaTimes t;
    const DmaIssue is = rule_.issue(p.dge, p.issuer, stream_ready, triggered, dge_);
    t.issue_start = is.start;
    t.issue_end = is.end;
    t.dispatch = is.dispatch;
    double moved = is.dispatch;
    t.data_start = p.trains.empty() ? is.dispatch : std::numeric_limits<double>::infinity();
    for (const auto& tr : p.trains) {
        double& next = queue_next_[size_t(tr.engine) * size_t(rule_.hw().dma.queues_per_engine) + p.queue];
        double& free = engine_free_[tr.engine];
        const double s = std::max({is.dispatch, free, next});
        next = s + rule_.queue_occupancy_ns(tr.work_ns);
        free = s + tr.work_ns;
        moved = std::max(moved, free);
        t.data_start = std::min(t.data_start, s);
        engine_busy_[tr.engine] += tr.work_ns;
        engine_descriptors_[tr.engine] += tr.descriptors;
    }
    t.data_end = moved + rule_.landing_ns(p.shape);
    t.end = rule_.completion_at(t.data_end);
    return t;
}

}  // namespace bnsim
