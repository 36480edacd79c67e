// simulate(): schedule the trace, elaborate the LNC (one core, or a pair sharing HBM and a link),
// run SystemC until nothing is left to happen, then either collect timings or report what is
// blocked. SystemC elaborates once per process, so this runs once per process.
#include "sim/simulate/simulate.h"

#include <atomic>

#include <algorithm>
#include <map>
#include <optional>
#include <sstream>

#include <systemc>

#include "models/cost_model.h"
#include "models/logical_core.h"
#include "models/scoreboard.h"
#include "configfile/config_error.h"
#include "sim/simulate/interval_union.h"
#include "sim/schedule/schedule.h"

namespace bnsim {
namespace {

std::string describe(const Trace& trace, uint32_t id) {
    const Instruction& in = trace.instructions()[id];
    std::ostringstream o;
    o << "#" << id << " core " << int(in.core) << " " << engine_name(in.engine) << " " << opcode_name(in.opcode);
    if (in.tag.what && *in.tag.what) o << " '" << in.tag.what << "'";
    return o.str();
}

std::string blocked_report(const Trace& trace, const Scoreboard& sb, const LogicalCore& top) {
    std::ostringstream o;
    const size_t n = trace.size();
    o << "simulation cannot finish: " << (n - sb.finished_count()) << " of " << n
      << " instructions never completed (deadlock or no progress). Blocked:";
    std::vector<std::pair<uint32_t, std::string>> unmatched;
    if (top.link()) unmatched = top.link()->unmatched();
    for (const auto& core : top.cores()) {
        for (Engine e : kAllEngines) {
            const InstructionEngine& eng = core->engine(e);
            if (eng.done()) continue;
            const uint32_t id = eng.head();
            o << "\n  " << describe(trace, id) << " waits on ";
            const Instruction& in = trace.instructions()[id];
            bool any = false;
            if (!sb.deps_met(id)) {
                for (uint32_t d : in.deps) {
                    if (sb.record(d).finished()) continue;
                    o << (any ? ", " : "") << describe(trace, d)
                      << (sb.record(d).started() ? " (running)" : " (not started)");
                    any = true;
                }
            }
            for (const auto& [uid, why] : unmatched)
                if (uid == id) {
                    o << (any ? ", " : "") << why;
                    any = true;
                }
            if (!any) o << "nothing (in flight)";
        }
        if (core->dma().in_flight()) o << "\n  core " << int(core->index()) << ": " << core->dma().in_flight()
                                       << " DMA(s) in flight";
    }
    return o.str();
}

}  // namespace

// What the trace asks of the hardware, checked in one pass before anything is elaborated: its
// DMA queues exist (too few is a config problem: say which parameter) and its SBUF regions lie
// inside each core's buffer. Returns each core's SBUF peak (the highest byte any instruction
// touches), which the report shows. One pass, not one per check: at C=1024 each pass reads 17 MB
// of instructions and operand lists.
static std::vector<uint64_t> check_trace_fits_hardware(const HwConfig& hw, const Trace& trace) {
    std::vector<uint64_t> sbuf_peak(size_t(std::max(1, trace.num_cores)), 0);
    for (const auto& ins : trace.instructions()) {
        if (ins.is_dma() && ins.dma.queue >= hw.dma.queues_per_engine)
            throw ConfigError("key 'hardware.dma.queues_per_engine': " + std::to_string(hw.dma.queues_per_engine) +
                              " is too few: instruction #" + std::to_string(ins.id) + " (" + ins.tag.what +
                              ") uses DMA queue " + std::to_string(ins.dma.queue));
        ins.for_each_read([&](const Region& r) { check_sbuf_access(hw.sbuf, ins, r, sbuf_peak); });
        ins.for_each_write([&](const Region& w) { check_sbuf_access(hw.sbuf, ins, w, sbuf_peak); });
    }
    return sbuf_peak;
}

// DMA queues: busy = the union of [first descriptor start, last descriptor landed] of their DMAs.
void add_dma_queue_units(const Trace& trace, SimResult& res) {
    std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> queue_spans;
    for (const auto& in : trace.instructions()) {
        if (!in.is_dma()) continue;
        const auto& t = res.timing[in.id];
        queue_spans[{in.core, in.dma.queue}].push_back({t.start_ns, t.data_end_ns});
    }
    for (const auto& [queue, spans] : queue_spans)
        res.units.cores.at(size_t(queue.first)).dma_queues[queue.second] =
            UnitStats{interval_union_length(spans), uint64_t(spans.size())};
}

namespace {
std::atomic<bool> g_simulated{false};

// SystemC elaborates once per simulation context: after sc_start() no module can be built in it.
// Each simulation after the first gets a fresh context (the previous one's modules are gone by
// then: `top` dies with its simulate() call), so one process can simulate many times, a worker
// of the runner's pool one point after another. The old context is deleted, freeing what its
// kernel kept, except the process's first: libsystemc's own static events registered with it
// at start-up and unregister from it at exit.
void fresh_simulation_context() {
    static sc_core::sc_simcontext* const first = sc_core::sc_get_curr_simcontext();
    if (!g_simulated.load()) return;
    sc_core::sc_simcontext* old = sc_core::sc_curr_simcontext;
    sc_core::sc_curr_simcontext = new sc_core::sc_simcontext;
    sc_core::sc_default_global_context = sc_core::sc_curr_simcontext;
    if (old != first) delete old;
}
}  // namespace

bool simulated_in_this_process() { return g_simulated.load(); }

SimResult simulate(const HwConfig& hw, const Trace& trace, const SimOptions& opts) {
    const std::vector<uint64_t> sbuf_peak = check_trace_fits_hardware(hw, trace);
    fresh_simulation_context();
    g_simulated = true;
    CostModel cost(hw);
    std::optional<Dependents> derived;
    const Dependents& dependents = opts.dependents ? *opts.dependents : derived.emplace(trace);
    Schedule sched = make_schedule(trace, dependents, cost, opts.policy);
    Scoreboard sb(trace, dependents, opts.observer);
    sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
    sc_core::sc_report_handler::set_actions(sc_core::SC_WARNING, sc_core::SC_DO_NOTHING);
    LogicalCore top("lnc", sched.cores, cost, trace, sb);
    sc_core::sc_start();
    if (sb.finished_count() < trace.size()) throw SimulationError(blocked_report(trace, sb, top));

    SimResult res;
    res.policy = schedule_policy_name(opts.policy);
    res.timing.resize(trace.size());
    double end = 0;
    for (uint32_t id = 0; id < trace.size(); ++id) {
        const ExecRecord& r = sb.record(id);
        InstrTiming& t = res.timing[id];
        t.start_ns = r.start_ns;
        t.end_ns = r.end_ns;
        t.ready_ns = r.ready_ns;
        t.head_ns = r.head_ns;
        t.waited_on = r.ready_ns > r.head_ns ? r.last_dep : -1;
        t.issue_start_ns = std::max(0.0, r.issue_start_ns);
        t.issue_end_ns = std::max(0.0, r.issue_end_ns);
        t.data_end_ns = std::max(0.0, r.data_end_ns);
        end = std::max(end, r.end_ns);
    }
    res.kernel_ns = end;
    res.latency_ns = end + hw.launch.fixed_ns;
    for (const auto& s : sched.cores) {
        std::vector<std::vector<uint32_t>> core(s.begin(), s.end());
        res.streams.push_back(core);
    }

    res.units.cores.resize(top.cores().size());
    for (const auto& core : top.cores()) {
        CoreUnitStats& u = res.units.cores.at(size_t(core->index()));
        for (Engine e : kAllEngines) {
            const auto& eng = core->engine(e);
            u.engines[size_t(e)] = UnitStats{eng.busy_ns(), eng.executed()};
        }
        for (const auto& engine : core->dma().engines())
            u.dma_engines.push_back(UnitStats{engine->busy_ns(), engine->descriptors()});
        u.dge = UnitStats{core->dma().dge().busy_ns(), 0};
        res.sbuf_peak_bytes.push_back(sbuf_peak.at(core->index()));
    }
    add_dma_queue_units(trace, res);
    res.units.hbm = UnitStats{top.hbm().busy_ns(), 0};
    if (top.link()) res.units.link = UnitStats{top.link()->busy_ns(), top.link()->transfers()};
    res.hbm_bytes_read = top.hbm().bytes_read();
    res.hbm_bytes_written = top.hbm().bytes_written();
    return res;
}

}  // namespace bnsim

// libsystemc's own main() calls sc_main; bnsim has its own main() and elaborates in simulate(),
// but the shared library still needs the symbol to link. It is never called.
int sc_main(int, char*[]) { return 1; }
