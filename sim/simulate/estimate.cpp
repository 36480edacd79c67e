// estimate(): `bnsim run --estimate`, the list scheduler's own timeline in the shape of a
// simulation result, for sweeps and fits to screen with before confirming in full.
#include <algorithm>
#include <array>
#include <limits>
#include <string>

#include "models/dma_lifecycle.h"
#include "models/sbuf.h"
#include "sim/schedule/schedule.h"
#include "sim/simulate/interval_union.h"
#include "sim/simulate/simulate.h"

namespace bnsim {

SimResult estimate(const HwConfig& hw, const Trace& trace) {
    CostModel cost(hw);
    const Schedule sched = schedule_list(trace, cost);
    SimResult res;
    res.policy = schedule_policy_name(SchedulePolicy::list);
    res.timing.resize(trace.size());
    double end = 0;
    std::vector<std::array<UnitStats, kNumEngines>> engines(size_t(trace.num_cores));
    uint64_t transfers = 0;
    double link_busy = 0;
    for (const auto& in : trace.instructions()) {
        const uint32_t id = in.id;
        InstrTiming& t = res.timing[id];
        t.head_ns = sched.est_head[id];
        t.ready_ns = sched.est_start[id];
        t.start_ns = sched.est_start[id];
        t.end_ns = sched.est_end[id];
        t.waited_on = sched.est_waited_on[id];
        ++engines[in.core][size_t(in.engine)].instructions;
        if (in.is_dma()) {
            const DmaTimes& d = sched.est_dma[id];
            t.start_ns = d.data_start;
            t.issue_start_ns = d.issue_start;
            t.issue_end_ns = d.issue_end;
            t.data_end_ns = d.data_end;
            const DmaRowShape sh = dma_row_shape(in);
            const uint64_t bytes = uint64_t(sh.rows) * sh.hbm_bytes;
            if (sh.hbm_read) res.hbm_bytes_read += bytes;
            if (sh.hbm_write) res.hbm_bytes_written += bytes;
        } else if (in.opcode == Opcode::SendRecv) {
            // Each exchange is two sendrecvs, one per core: the link counts it once (below).
            ++transfers;
            link_busy += cost.sendrecv_ns(in);
        }
        end = std::max(end, t.end_ns);
    }
    // Busy time as the simulation counts it: the union of each instruction's span on its engine,
    // from its start to its result written (what the scheduler charged it, state-dependent costs
    // such as ACT table switches included, then the engine's result latency: the Tensor engine's
    // spans overlap by it).
    for (int c = 0; c < trace.num_cores; ++c)
        for (Engine e : kAllEngines) {
            std::vector<std::pair<double, double>> spans;
            for (uint32_t id : sched.cores[size_t(c)][size_t(e)]) {
                const double s = sched.est_start[id];
                spans.emplace_back(s, s + sched.est_occupy[id] + cost.result_latency_ns(trace.instructions()[id]));
            }
            engines[size_t(c)][size_t(e)].busy_ns = interval_union_length(std::move(spans));
        }
    res.kernel_ns = end;
    res.latency_ns = end + hw.launch.fixed_ns;
    const std::vector<uint64_t> sbuf_peak = sbuf_highest_bytes(trace);
    res.units.cores.resize(size_t(trace.num_cores));
    for (int c = 0; c < trace.num_cores; ++c) {
        CoreUnitStats& u = res.units.cores[size_t(c)];
        for (Engine e : kAllEngines) u.engines[size_t(e)] = engines[size_t(c)][size_t(e)];
        const auto& dma = sched.est_dma_units[size_t(c)];
        for (size_t k = 0; k < dma.engine_busy_ns.size(); ++k)
            u.dma_engines.push_back(UnitStats{dma.engine_busy_ns[k], dma.engine_descriptors[k]});
        u.dge = UnitStats{dma.dge_busy_ns, 0};
        res.sbuf_peak_bytes.push_back(sbuf_peak[size_t(c)]);
        std::vector<std::vector<uint32_t>> streams(sched.cores[size_t(c)].begin(), sched.cores[size_t(c)].end());
        res.streams.push_back(streams);
    }
    add_dma_queue_units(trace, res);
    res.units.hbm = UnitStats{double(res.hbm_bytes_read + res.hbm_bytes_written) / hw.hbm.bandwidth_gbps, 0};
    if (trace.num_cores > 1) res.units.link = UnitStats{link_busy / 2, transfers / 2};
    return res;
}

double estimate_latency_ns(const HwConfig& hw, const Trace& trace, const Dependents& dependents, double stop_above,
                           const CostRows* rows) {
    const CostModel cost(hw, rows);
    const double launch = hw.launch.fixed_ns;
    if (stop_above < std::numeric_limits<double>::infinity()) {
        // The pass stops once its end passes stop_above less the launch; the whole estimate is
        // then above stop_above unless rounding of that difference put the stop an ulp early,
        // when the whole pass decides.
        const Schedule s = schedule_list(trace, dependents, cost, ScheduleDetail::streams, stop_above - launch);
        if (!s.stopped) return s.est_end_ns + launch;
        if (s.est_end_ns + launch > stop_above) return std::numeric_limits<double>::infinity();
    }
    return schedule_list(trace, dependents, cost, ScheduleDetail::streams).est_end_ns + launch;
}

double estimate_lower_bound_ns(const HwConfig& hw, const Trace& trace, const std::vector<CoreStreams>& streams,
                               double stop_above, const CostRows* rows) {
    constexpr double kNone = -std::numeric_limits<double>::infinity();
    // A negative table switch would make an engine's stream cheaper than its instructions' own costs.
    if (hw.act.table_switch_ns < 0) return kNone;
    const CostModel cost(hw, rows);
    const double launch = hw.launch.fixed_ns;
    // Each stream (a core's engine) summed in program order, not the scheduler's: the two sums
    // differ by rounding alone, at most n ulps of the sum, which this factor takes off (n < 10^6
    // instructions: 10^-10).
    constexpr double kRounding = 1 - 1e-9;
    const double stop_sum = (stop_above - launch) / kRounding;
    // The streams one at a time, likeliest busiest first (its first instruction's cost times its
    // length: a kernel's tiles repeat), each until its sum passes stop_above: a config ruled out
    // is ruled out by pricing part of one stream, not the whole trace.
    std::vector<std::pair<double, const std::vector<uint32_t>*>> order;  // (guessed sum, stream)
    for (const CoreStreams& core : streams)
        for (const auto& stream : core)
            if (!stream.empty())
                order.emplace_back(cost.engine_ns(trace.instructions()[stream[0]]) * double(stream.size()), &stream);
    std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    double most = 0;
    for (const auto& [guess, stream] : order) {
        double sum = 0;
        for (uint32_t id : *stream) {
            const double ns = cost.engine_ns(trace.instructions()[id]);
            if (!(ns >= 0)) return kNone;
            sum += ns;
            if (sum > stop_sum) return sum * kRounding + launch;  // already above: the rest only adds
        }
        most = std::max(most, sum);
    }
    return most * kRounding + launch;
}

}  // namespace bnsim
