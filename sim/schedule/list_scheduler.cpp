// The default scheduling policy: a list scheduler, as an approximation of the NKI compiler's.
//
// How it approximates the compiler. The NKI compiler reorders each engine's instruction stream
// within the data dependencies (the same RAW/WAR/WAW edges this trace derives) using its own
// cost estimates, then each engine runs its stream in order and cross-engine edges become
// semaphore waits. We do the same with the simulator's cost model: each core is scheduled on its
// own (as NKI compiles each SPMD program on its own) by simulating an idealised core —
//  * each engine is a resource busy for the instruction's cost-model time (a DMA trigger only
//    for the trigger: it does not block the stream);
//  * a DMA's result time is estimated from its lifecycle (models/dma_lifecycle.h, the rule the
//    SystemC DMA models follow): the hardware DGE unit that frees first (issue; none for
//    pre-generated descriptors), dispatch, each engine serving its train of the DMA's
//    descriptors back to back after what it already holds and no sooner than its queue's
//    occupancy by the queue's previous DMA allows, landing latency and completion — so many
//    loads in flight are seen to share the DMA engines (IdealDmaTimeline: no HBM contention);
//  * a sendrecv's result time is its trigger plus the link transfer (the rendezvous is not
//    estimated).
// At each step the engine that can start something earliest takes, among its instructions
// whose dependencies are all met by then, the one earliest in program order (the compiler keeps
// source order unless the dependencies let something run sooner). So tile i+1's loads, which
// only wait for their slot to be free, move ahead of tile i's direct_x store, which waits for
// tile i's compute — the reordering multibuffering relies on.
// Its engine orders are always executable: each engine's stream is a subsequence of one
// topological order of the dependency graph, and a triggered DMA waits only on the DMAs queued
// ahead of it (triggered earlier), so in-order engines and in-order DMA queues cannot wait on
// one another in a cycle.
// What it does not do: model HBM contention between the two cores of a pair, PSUM, explicit
// schedule edges or no_reorder blocks (the trace has none), or the compiler's real heuristics,
// which are not published.
#include <algorithm>
#include <limits>
#include <queue>

#include "models/dma_lifecycle.h"
#include "sim/schedule/schedule.h"

namespace bnsim {
namespace {

struct CoreScheduler {
    const Trace& trace;
    const Dependents& dependents;
    const CostModel& cost;
    const HwConfig& hw;
    Schedule& out;
    int core;
    bool timeline;  // fill out.est_* (only `run --estimate` reads them)
    double stop_above;

    using Pending = std::pair<double, uint32_t>;  // (dependency-ready time, id)
    struct EngineQ {
        std::priority_queue<Pending, std::vector<Pending>, std::greater<Pending>> pending;
        std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<uint32_t>> available;
        double free_at = 0;
    };

    void run() {
        const auto& ins = trace.instructions();
        // This core's instructions, from the dependents' byte per instruction (a pass over the
        // then 256-byte instructions was a fifth of an estimate). Each successor's engine is read there
        // too: at C=1024 the trace outgrows the caches, and one cold line per edge cost a third of
        // the pass over the edges.
        std::vector<uint32_t> mine;
        mine.reserve(ins.size());
        for (uint32_t id = 0; id < uint32_t(ins.size()); ++id)
            if (dependents.core(id) == core) mine.push_back(id);
        std::vector<uint32_t> indeg(ins.size(), 0);
        for (uint32_t id : mine) indeg[id] = dependents.dep_count(id);

        std::vector<EngineQ> q(kNumEngines);
        std::vector<CostModel::EngineState> state(kNumEngines);
        const DmaLifecycle rule(hw);
        IdealDmaTimeline dma(rule);
        DmaPlanner planner(rule);
        std::vector<double> dep_ready(ins.size(), 0.0);
        std::vector<int64_t> last_dep(ins.size(), -1);
        for (uint32_t id : mine)
            if (indeg[id] == 0) q[size_t(ins[id].engine)].pending.push({0.0, id});

        size_t scheduled = 0;
        std::vector<char> done(ins.size(), 0);
        auto& streams = out.cores[size_t(core)];
        while (scheduled < mine.size()) {
            // The engine that can start something earliest.
            int best = -1;
            double best_t = std::numeric_limits<double>::infinity();
            for (int e = 0; e < kNumEngines; ++e) {
                EngineQ& eq = q[size_t(e)];
                if (eq.available.empty() && eq.pending.empty()) continue;
                double t = eq.free_at;
                if (eq.available.empty()) t = std::max(t, eq.pending.top().first);
                if (t < best_t) {
                    best_t = t;
                    best = e;
                }
            }
            if (best < 0) {  // a dependency cycle: nothing is ready; leave it to the simulator to report
                out.stuck = true;
                for (uint32_t id : mine)
                    if (!done[id]) {
                        const size_t e = size_t(ins[id].engine);
                        streams[e].push_back(id);
                        if (timeline) out.est_occupy[id] = cost.engine_ns(ins[id], state[e]);
                    }
                return;
            }
            EngineQ& eq = q[size_t(best)];
            while (!eq.pending.empty() && eq.pending.top().first <= best_t) {
                eq.available.push(eq.pending.top().second);
                eq.pending.pop();
            }
            const uint32_t id = eq.available.top();
            eq.available.pop();
            const Instruction& in = ins[id];
            const double start = best_t;
            const double occupy = cost.engine_ns(in, state[size_t(best)]);
            double result = start + occupy + cost.result_latency_ns(in);
            if (in.is_dma()) {
                const DmaTimes times = dma.run(planner.plan(in, trace), start, start + occupy);
                result = times.end;
                if (timeline) out.est_dma[id] = times;
            } else if (in.opcode == Opcode::SendRecv) {
                result = start + occupy + cost.sendrecv_ns(in);
            }
            if (timeline) {
                out.est_head[id] = eq.free_at;
                out.est_occupy[id] = occupy;
                if (start > eq.free_at && last_dep[id] >= 0) out.est_waited_on[id] = last_dep[id];
                out.est_start[id] = start;
                out.est_end[id] = result;
            }
            eq.free_at = start + occupy;
            out.est_end_ns = std::max(out.est_end_ns, result);
            if (out.est_end_ns > stop_above) {
                out.stopped = true;
                return;
            }
            streams[size_t(best)].push_back(id);
            done[id] = 1;
            ++scheduled;
            for (const uint32_t* it = dependents.begin(id); it != dependents.end(id); ++it) {
                const uint32_t d = *it;
                const Engine de = dependents.engine(d);
                const double visible = result + cost.handoff_ns(in, de);
                if (visible >= dep_ready[d]) last_dep[d] = id;
                dep_ready[d] = std::max(dep_ready[d], visible);
                if (--indeg[d] == 0) {
                    q[size_t(de)].pending.push({dep_ready[d], d});
                    // It is scheduled soon; start fetching it.
                    prefetch_instruction(ins[d]);
                }
            }
        }
        out.est_dma_units[size_t(core)] = {dma.engine_busy_ns(), dma.engine_descriptors(), dma.dge_busy_ns()};
    }
};

}  // namespace

Schedule schedule_list(const Trace& trace, const CostModel& cost, ScheduleDetail detail) {
    return schedule_list(trace, Dependents(trace), cost, detail);
}

Schedule schedule_list(const Trace& trace, const Dependents& dependents, const CostModel& cost, ScheduleDetail detail,
                       double stop_above) {
    Schedule s;
    s.cores.resize(size_t(trace.num_cores));
    const bool timeline = detail == ScheduleDetail::timeline;
    if (timeline) {
        s.est_start.assign(trace.size(), 0.0);
        s.est_end.assign(trace.size(), 0.0);
        s.est_head.assign(trace.size(), 0.0);
        s.est_occupy.assign(trace.size(), 0.0);
        s.est_waited_on.assign(trace.size(), -1);
        s.est_dma.assign(trace.size(), DmaTimes{});
    }
    s.est_dma_units.resize(size_t(trace.num_cores));
    for (int c = 0; c < trace.num_cores; ++c) {
        CoreScheduler cs{trace, dependents, cost, cost.hw(), s, c, timeline, stop_above};
        cs.run();
        if (s.stopped) break;
    }
    return s;
}

}  // namespace bnsim
