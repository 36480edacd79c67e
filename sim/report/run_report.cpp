#include "sim/config/run_config.h"
#include "sim/report/run_report.h"

#include "kernels/kernel_entry.h"
#include "sim/report/phase_window.h"

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <iomanip>
#include <map>
#include <memory>
#include <ostream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <tuple>
#include <vector>

#include "models/cost_model.h"
#include "models/dma_lifecycle.h"

namespace bnsim {

using json = nlohmann::ordered_json;

namespace {

double ps(double ns) { return report_ns(ns); }

// Busy time each unit would need for a set of instructions (the lower bounds).
struct Bounds {
    double engine[kNumEngines] = {};  // summed cost-model time, max over cores
    double dma_ns = 0;                // max(descriptor time / engines, longest queue window), max over cores
    double dma_plateau_ns = 0;        // the same bytes at the engines' plateau rate
    double dge_ns = 0;                // hardware DGE issue per block (models/dge.h), max over cores
    double hbm_ns = 0;                // HBM bytes / stack bandwidth (shared by the pair)
    uint64_t dmas = 0, descriptors = 0, desc_bytes = 0, hbm_bytes = 0;
};

// The bounds of one set of instructions, added one at a time in program order.
class BoundsSum {
public:
    BoundsSum(const HwConfig& hw, int num_cores)
        : hw_(hw), rule_(hw), nc_(std::max(1, num_cores)), eng_(size_t(nc_)), dma_(size_t(nc_), 0),
          plateau_(size_t(nc_), 0), queue_win_(size_t(nc_), 0), dge_(size_t(nc_), {0.0, 0.0}),
          engines_(size_t(hw.dma.engines_per_core)), queues_(size_t(hw.dma.queues_per_engine)),
          spans_(size_t(nc_) * engines_ * queues_) {
        for (auto& a : eng_) a.fill(0.0);
    }

    // `engine_ns`: the instruction's cost-model engine time; `plan`: its DMA plan (DMAs only).
    void add(const Instruction& in, double engine_ns, const DmaPlan& plan) {
        eng_[in.core][size_t(in.engine)] += engine_ns;
        if (!in.is_dma()) return;
        const DmaRowShape& sh = plan.shape;
        // The core's sums in locals over the trains (the same additions in the same order).
        double dma = dma_[in.core], win = queue_win_[in.core];
        QueueSpan* spans = &spans_[size_t(in.core) * engines_ * queues_ + in.dma.queue];
        for (const auto& t : plan.trains) {
            dma += t.work_ns;
            QueueSpan& q = spans[t.engine * queues_];
            if (q.last > 0) q.occupied += rule_.queue_occupancy_ns(q.last);
            q.last = t.work_ns;
            win = std::max(win, q.occupied + q.last);
        }
        dma_[in.core] = dma;
        queue_win_[in.core] = win;
        plateau_[in.core] += double(sh.rows) * sh.desc_bytes / hw_.dma.engine_bandwidth_gbps;
        if (in.dma.dge == DgeMode::hardware) dge_[in.core][Dge::block_of(in.engine)] += hw_.dma.issue_ns;
        ++b_.dmas;
        b_.descriptors += sh.rows;
        b_.desc_bytes += uint64_t(sh.rows) * sh.desc_bytes;
        b_.hbm_bytes += uint64_t(sh.rows) * sh.hbm_bytes;
    }

    Bounds result() const {
        Bounds b = b_;
        for (int c = 0; c < nc_; ++c) {
            for (int e = 0; e < kNumEngines; ++e) b.engine[e] = std::max(b.engine[e], eng_[size_t(c)][size_t(e)]);
            b.dma_ns = std::max({b.dma_ns, dma_[size_t(c)] / hw_.dma.engines_per_core, queue_win_[size_t(c)]});
            b.dma_plateau_ns = std::max(b.dma_plateau_ns, plateau_[size_t(c)] / hw_.dma.engines_per_core);
            const auto& d = dge_[size_t(c)];
            // Bound to the issuer: each engine's DMAs on its own block; else spread over all.
            b.dge_ns = std::max(b.dge_ns, hw_.dma.dge_bound_to_issuer && hw_.dma.hw_dge_units > 1
                                              ? std::max(d[0], d[1])
                                              : (d[0] + d[1]) / hw_.dma.hw_dge_units);
        }
        b.hbm_ns = double(b.hbm_bytes) / hw_.hbm.bandwidth_gbps;
        return b;
    }

private:
    // Per (core, engine, queue): the queue's DMAs start at least their occupancy apart, so the
    // queue's window is at least the earlier DMAs' occupancies plus the last DMA's work.
    struct QueueSpan {
        double occupied = 0, last = 0;
    };
    const HwConfig& hw_;
    const DmaLifecycle rule_;
    int nc_;
    std::vector<std::array<double, kNumEngines>> eng_;  // summed cost-model time per core
    std::vector<double> dma_, plateau_, queue_win_;
    std::vector<std::array<double, 2>> dge_;  // per core: DGE issue of the Sync engine's DMAs, ACT's
    size_t engines_, queues_;
    std::vector<QueueSpan> spans_;  // [core][engine][queue]
    Bounds b_;
};

// The bounds of every phase and of the whole kernel, in one pass over the trace: each
// instruction's engine time (`engine_ns`, by id) and each DMA's plan are added to its phase's
// sum and the kernel's (the sums see the same instructions in the same order as one pass per
// phase would). A plan is dropped once added: nothing else needs it.
struct KernelBounds {
    std::map<int, Bounds> phase;
    Bounds all;
};
KernelBounds compute_bounds(const Trace& trace, const HwConfig& hw, const std::vector<double>& engine_ns) {
    std::map<int, BoundsSum> phase;
    BoundsSum all(hw, trace.num_cores);
    const DmaLifecycle rule(hw);
    DmaPlanner planner(rule);
    const DmaPlan none;
    auto it = phase.end();
    for (const auto& in : trace.instructions()) {
        const double ns = engine_ns[in.id];
        if (it == phase.end() || it->first != in.tag.phase) {  // phases come in long runs
            it = phase.find(in.tag.phase);
            if (it == phase.end()) it = phase.emplace(in.tag.phase, BoundsSum(hw, trace.num_cores)).first;
        }
        const DmaPlan& plan = in.is_dma() ? planner.plan(in, trace) : none;  // valid until the next plan()
        it->second.add(in, ns, plan);
        all.add(in, ns, plan);
    }
    KernelBounds out;
    for (const auto& [p, sum] : phase) out.phase.emplace(p, sum.result());
    out.all = all.result();
    return out;
}

std::string unit_label(const std::string& k) {
    if (k == "hbm") return "HBM";
    if (k == "dma") return "DMA";
    if (k == "dge") return "DGE-issue";
    std::string u = k;
    for (auto& ch : u) ch = char(std::toupper(static_cast<unsigned char>(ch)));
    return u;
}

BoundTimes bound_times(const Bounds& b) {
    BoundTimes t;
    t.hbm_ns = ps(b.hbm_ns);
    t.dma_ns = ps(b.dma_ns);
    t.dma_plateau_ns = ps(b.dma_plateau_ns);
    t.dge_ns = ps(b.dge_ns);
    for (Engine e : kAllEngines) t.engine_ns[size_t(e)] = ps(b.engine[int(e)]);
    return t;
}

bool is_movement(const std::string& unit) { return unit == "dma" || unit == "hbm" || unit == "dge"; }

// Which bound binds, and by how much over the runner-up of the other kind (engines vs data movement).
Binding binding_of(const Bounds& b, double duration_ns) {
    std::vector<std::pair<std::string, double>> all;
    for (Engine e : kAllEngines) all.emplace_back(engine_name(e), b.engine[int(e)]);
    all.emplace_back("dma", b.dma_ns);
    all.emplace_back("dge", b.dge_ns);
    all.emplace_back("hbm", b.hbm_ns);
    auto top = std::max_element(all.begin(), all.end(), [](auto& x, auto& y) { return x.second < y.second; });
    const bool movement = is_movement(top->first);
    // Compare against the largest bound of the other kind.
    std::pair<std::string, double> other{"", 0};
    for (const auto& p : all)
        if (is_movement(p.first) != movement && p.second > other.second) other = p;
    Binding j;
    j.unit = top->first;
    j.bound_ns = ps(top->second);
    j.versus = other.first;
    j.versus_ns = ps(other.second);
    const double ratio = other.second > 0 ? top->second / other.second : 0;
    j.ratio = std::round(ratio * 100) / 100;
    j.duration_over_bound = top->second > 0 ? std::round(duration_ns / top->second * 100) / 100 : 0;
    std::ostringstream o;
    o << unit_label(top->first) << "-bound";
    if (other.second > 0)
        o << ", " << std::fixed << std::setprecision(1) << ratio << "x over its " << unit_label(other.first)
          << " time";
    if (top->second > 0)
        o << "; runs at " << std::fixed << std::setprecision(2) << duration_ns / top->second << "x that bound";
    j.summary = o.str();
    return j;
}

// DMA fixed cost dominates when the DMA engines' time beyond the bytes at plateau rate (the
// per-descriptor overhead and the per-DMA queue occupancy, dma.min_queue_occupancy_ns) outweighs
// the time the bytes need at full rate.
bool dma_fixed_dominates(const Bounds& b, const HwConfig& hw, std::string& why) {
    if (b.dmas == 0 || b.dma_plateau_ns <= 0) return false;
    const double overhead = b.dma_ns - b.dma_plateau_ns;
    const double per_dma_fixed = hw.dma.issue_ns + hw.dma.dispatch_ns + hw.dma.completion_ns;
    const double avg_row = double(b.desc_bytes) / double(std::max<uint64_t>(b.descriptors, 1));
    std::ostringstream o;
    o << std::fixed << std::setprecision(0) << "DMA fixed cost dominates: " << b.dmas << " DMAs of "
      << avg_row << " B per partition row run at " << std::setprecision(1)
      << 100.0 * b.dma_plateau_ns / b.dma_ns << "% of the engines' plateau (" << std::setprecision(0)
      << b.dma_ns / 1000.0 << " us of DMA time, per-descriptor overhead and per-DMA queue occupancy ("
      << hw.dma.min_queue_occupancy_ns << " ns) included, for " << b.dma_plateau_ns / 1000.0
      << " us of data), plus " << per_dma_fixed << " ns of issue/dispatch/completion per DMA";
    why = o.str();
    return overhead > b.dma_plateau_ns;
}

// The part of an instruction's engine time priced by estimates rather than by measured or
// published figures: a compute instruction's whole time when its cost row is an estimate; a
// DMA or sendrecv trigger's time when dma.trigger_cycles is one (and software descriptor
// generation when dma.sw_dge_issue_ns is).
// Whether a hardware parameter's value is an estimate (its provenance says so).
bool is_estimate(const HwConfig& hw, const std::string& name) {
    const auto it = hw.provenance.find(name);
    return it != hw.provenance.end() && it->second.estimate;
}

struct EstimatedTriggers {
    bool trigger_cycles = false, sw_dge_issue = false;  // dma.trigger_cycles, dma.sw_dge_issue_ns
    explicit EstimatedTriggers(const HwConfig& hw)
        : trigger_cycles(is_estimate(hw, "dma.trigger_cycles")), sw_dge_issue(is_estimate(hw, "dma.sw_dge_issue_ns")) {}
};

// `total`: the instruction's engine time, cost.engine_ns(in).
double estimated_engine_ns(const CostModel& cost, const EstimatedTriggers& est, const Instruction& in, double total) {
    if (in.is_dma() || in.opcode == Opcode::SendRecv) {
        const double trigger = cost.cycles_to_ns(in.engine, cost.hw().dma.trigger_cycles);
        return (est.trigger_cycles ? trigger : 0) + (est.sw_dge_issue ? total - trigger : 0);
    }
    return cost.entry(in).estimate ? total : 0;
}

// Per core and queue, the roles of the DMAs on it ("load dy, load x"), sorted and distinct.
// Tags point at the kernel's static strings, so they are gathered as views, in one pass.
std::map<std::pair<int, int>, std::string> queue_roles(const Trace& trace) {
    std::map<std::pair<int, int>, std::set<std::string_view>> roles;
    // The same (core, queue, tag string) recurs for every tile: each is inserted once.
    std::vector<std::tuple<int, int, const char*>> seen;
    for (const auto& in : trace.instructions()) {
        if (!in.is_dma()) continue;
        const std::tuple<int, int, const char*> key{in.core, in.dma.queue, in.tag.what};
        if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
        seen.push_back(key);
        roles[{in.core, in.dma.queue}].insert(in.tag.what);
    }
    std::map<std::pair<int, int>, std::string> out;
    for (const auto& [queue, names] : roles) {
        std::string& s = out[queue];
        for (const auto& r : names) {
            if (!s.empty()) s += ", ";
            s += r;
        }
    }
    return out;
}

}  // namespace

struct TraceFigures {
    std::vector<double> engine_ns;  // each instruction's cost-model engine time, by id
    // Per core and engine, in program order: the instructions' engine time, and the part of it
    // priced by estimated parameters (estimated_engine_ns). Summed here, on the report's own
    // thread, so the report after the run need not look every instruction's cost row up again.
    std::vector<std::array<double, kNumEngines>> own_ns, estimated_ns;
    KernelBounds bounds;
    std::map<std::pair<int, int>, std::string> queue_roles;
};

std::shared_ptr<const TraceFigures> trace_figures(const HwConfig& hw, const Trace& trace) {
    auto f = std::make_shared<TraceFigures>();
    const CostModel cost(hw);
    const EstimatedTriggers estimated_triggers(hw);
    f->engine_ns.resize(trace.size());
    std::array<double, kNumEngines> zero;
    zero.fill(0.0);
    f->own_ns.assign(size_t(std::max(1, trace.num_cores)), zero);
    f->estimated_ns = f->own_ns;
    for (const auto& in : trace.instructions()) {
        const double ns = cost.engine_ns(in);
        f->engine_ns[in.id] = ns;
        f->own_ns[in.core][size_t(in.engine)] += ns;
        f->estimated_ns[in.core][size_t(in.engine)] += estimated_engine_ns(cost, estimated_triggers, in, ns);
    }
    f->bounds = compute_bounds(trace, hw, f->engine_ns);
    f->queue_roles = queue_roles(trace);
    return f;
}

RunReport build_run_report(const RunConfig& cfg, const GeneratedKernel& k, const SimResult& r) {
    return build_run_report(cfg, k, r, *trace_figures(cfg.hw, k.trace));
}

RunReport build_run_report(const RunConfig& cfg, const GeneratedKernel& k, const SimResult& r,
                           const TraceFigures& figures) {
    const Trace& trace = k.trace;
    RunReport j;
    j.kernel = cfg.kernel;
    j.config = cfg.file;
    j.hardware = cfg.hw.name;
    j.lnc = cfg.lnc;
    j.schedule = r.policy;
    if (cfg.entry && cfg.entry->add_run_fields) cfg.entry->add_run_fields(k, j.kernel_fields);
    j.latency_ns = ps(r.latency_ns);
    j.kernel_ns = ps(r.kernel_ns);
    j.launch_ns = ps(cfg.hw.launch.fixed_ns);
    j.instructions = trace.size();

    // Phases: each over its window (phase_window.h), where its binding is judged too.
    const KernelBounds& bounds = figures.bounds;
    PhaseWindows windows;
    for (const auto& in : trace.instructions()) windows.add(in, r.timing[in.id]);
    for (const PhaseWindow& w : windows.windows()) {  // every phase, in order
        const Bounds& b = bounds.phase.at(w.phase);
        const int p = w.phase;
        PhaseReport ph;
        ph.name = p == 0 ? std::string("setup") : "phase " + std::to_string(p);
        ph.start_ns = ps(w.start_ns);
        ph.end_ns = ps(w.end_ns);
        ph.duration_ns = ps(w.duration_ns());
        ph.first_start_ns = ps(w.first_start_ns);
        ph.bounds = bound_times(b);
        ph.binding = binding_of(b, w.duration_ns());
        std::string why;
        ph.dma_fixed_cost_dominates = dma_fixed_dominates(b, cfg.hw, why);
        if (ph.dma_fixed_cost_dominates) {
            ph.dma_note = why;
            j.notes.push_back(ph.name + ": " + why);
        }
        j.phases.push_back(std::move(ph));
    }

    // Engines: busy time (max over cores) and utilization.
    const double kn = std::max(r.kernel_ns, 1e-9);
    // Busy time priced by estimates: per instruction (estimated_engine_ns), plus what the engine
    // added beyond its instructions' own costs when that is an estimate: ACT's table switches,
    // an engine's result latency (the tail of a span no next instruction overlaps).
    const auto& estimated = figures.estimated_ns;
    const auto& own = figures.own_ns;
    // Per engine, the time its instructions waited on semaphores, summed in program order.
    std::array<double, kNumEngines> wait{};
    for (const auto& in : trace.instructions())
        wait[size_t(in.engine)] += r.timing[in.id].ready_ns - r.timing[in.id].head_ns;
    for (Engine e : kAllEngines) {
        const bool extra_estimated =
            (e == Engine::Act && is_estimate(cfg.hw, "act.table_switch_ns")) ||
            (cfg.hw.engine(e).result_latency_cycles > 0 &&
             is_estimate(cfg.hw, std::string("engines.") + engine_name(e) + ".result_latency_cycles"));
        double busy = 0, est = 0;
        uint64_t n = 0;
        std::vector<EngineCoreFigures> per_core;
        for (int c = 0; c < trace.num_cores; ++c) {
            const UnitStats u = r.units.cores.at(size_t(c)).engines[size_t(e)];
            double ce = estimated[size_t(c)][size_t(e)];
            if (extra_estimated) ce += std::max(0.0, u.busy_ns - own[size_t(c)][size_t(e)]);
            if (u.busy_ns > busy || (u.busy_ns == busy && ce > est)) busy = u.busy_ns, est = ce;
            n += u.instructions;
            per_core.push_back({ps(u.busy_ns), u.instructions, ps(ce)});
        }
        if (n == 0) continue;
        EngineReport ej;
        ej.engine = e;
        ej.busy_ns = ps(busy);
        ej.utilization = std::round(busy / kn * 10000) / 10000;
        ej.instructions = n;
        ej.semaphore_wait_ns = ps(wait[size_t(e)]);
        // Of the busy time (the busiest core's), how much estimated cost rows or parameters priced.
        ej.estimated_busy_ns = ps(est);
        ej.estimated_share = busy > 0 ? std::round(est / busy * 10000) / 10000 : 0.0;
        if (trace.num_cores > 1) ej.cores = std::move(per_core);
        j.engines.push_back(std::move(ej));
    }

    // DMA queues.
    const auto& roles = figures.queue_roles;
    for (int c = 0; c < trace.num_cores; ++c)
        for (const auto& [q, u] : r.units.cores.at(size_t(c)).dma_queues) {
            DmaQueueReport qj;
            qj.core = c;
            qj.queue = q;
            const auto role = roles.find({c, q});
            if (role != roles.end()) qj.roles = role->second;
            qj.dmas = u.instructions;
            qj.busy_ns = ps(u.busy_ns);
            qj.utilization = std::round(u.busy_ns / kn * 10000) / 10000;
            j.dma_queues.push_back(std::move(qj));
        }

    // Where an NKI kernel's time goes, by the source line that issued each instruction (traced
    // kernels and trace files only): the sum of its instructions' durations, start to results.
    {
        struct Line {
            uint64_t n = 0;
            double ns = 0;
            unsigned engines = 0;
        };
        std::map<std::string, Line> lines;
        for (const auto& in : trace.instructions()) {
            if (!in.tag.source) continue;
            Line& l = lines[in.tag.source];
            ++l.n;
            l.ns += r.timing[in.id].end_ns - r.timing[in.id].start_ns;
            l.engines |= 1u << unsigned(in.engine);
        }
        std::vector<std::pair<std::string, Line>> order(lines.begin(), lines.end());
        std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.second.ns > b.second.ns; });
        for (const auto& [src, l] : order) {
            std::string engines;
            for (Engine e : kAllEngines)
                if (l.engines & (1u << unsigned(e))) engines += std::string(engines.empty() ? "" : ",") + engine_name(e);
            j.source_lines.push_back({src, l.n, engines, ps(l.ns)});
        }
    }
    {
        double eng_busy = 0;
        int n_eng = 0;
        for (const auto& core : r.units.cores)
            for (const auto& u : core.dma_engines) {
                eng_busy += u.busy_ns;
                ++n_eng;
            }
        j.dma.engines = n_eng;
        j.dma.engine_busy_ns_avg = ps(n_eng ? eng_busy / n_eng : 0);
        j.dma.engine_utilization = n_eng ? std::round(eng_busy / n_eng / kn * 10000) / 10000 : 0;
        double dge = 0;
        for (const auto& core : r.units.cores) dge = std::max(dge, core.dge.busy_ns);
        j.dma.dge_busy_ns = ps(dge);
    }

    j.hbm.bytes_read = r.hbm_bytes_read;
    j.hbm.bytes_written = r.hbm_bytes_written;
    const double gbps = double(r.hbm_bytes_read + r.hbm_bytes_written) / kn;
    j.hbm.achieved_gbps = std::round(gbps * 100) / 100;
    j.hbm.peak_gbps = cfg.hw.hbm.bandwidth_gbps;
    j.hbm.utilization = std::round(gbps / cfg.hw.hbm.bandwidth_gbps * 10000) / 10000;
    j.sbuf.capacity_bytes_per_partition = cfg.hw.sbuf.bytes_per_partition;
    j.sbuf.peak_bytes_per_partition = r.sbuf_peak_bytes;  // per core: highest byte any instruction touches
    if (r.units.link) j.link = LinkReport{r.units.link->instructions, ps(r.units.link->busy_ns)};

    // Whole-kernel lower bounds.
    j.bounds = bound_times(bounds.all);
    j.binding = binding_of(bounds.all, r.kernel_ns);
    std::string why;
    j.dma_fixed_cost_dominates = dma_fixed_dominates(bounds.all, cfg.hw, why);
    if (j.dma_fixed_cost_dominates) j.notes.push_back("kernel: " + why);
    j.kernel_summary = k.summary;
    return j;
}

// ---- JSON ----

namespace {

json bounds_json(const BoundTimes& b) {
    json j;
    j["hbm_ns"] = b.hbm_ns;
    j["dma_ns"] = b.dma_ns;
    j["dma_plateau_ns"] = b.dma_plateau_ns;
    j["dge_ns"] = b.dge_ns;
    for (Engine e : kAllEngines) j[std::string(engine_name(e)) + "_ns"] = b.engine_ns[size_t(e)];
    return j;
}

json binding_json(const Binding& b) {
    return json{{"unit", b.unit},           {"bound_ns", b.bound_ns}, {"versus", b.versus},
                {"versus_ns", b.versus_ns}, {"ratio", b.ratio},       {"duration_over_bound", b.duration_over_bound},
                {"summary", b.summary}};
}

// Reads a report back: each accessor names the field it wanted when it is missing or mistyped.
class Fields {
public:
    Fields(const json& j, std::string path) : j_(j), path_(std::move(path)) {
        if (!j_.is_object()) fail("", "an object");
    }
    bool has(const char* k) const { return j_.find(k) != j_.end(); }
    const json& at(const char* k, const char* want) const {
        const auto it = j_.find(k);
        if (it == j_.end()) fail(k, want);
        return *it;
    }
    double number(const char* k) const {
        const auto& v = at(k, "a number");
        if (!v.is_number()) fail(k, "a number");
        return v.get<double>();
    }
    uint64_t count(const char* k) const {
        const auto& v = at(k, "a count");
        if (!v.is_number_unsigned()) fail(k, "a count");
        return v.get<uint64_t>();
    }
    int integer(const char* k) const {
        const auto& v = at(k, "an integer");
        if (!v.is_number_integer() || v.get<int64_t>() < INT32_MIN || v.get<int64_t>() > INT32_MAX) fail(k, "an integer");
        return int(v.get<int64_t>());
    }
    bool flag(const char* k) const {
        const auto& v = at(k, "true or false");
        if (!v.is_boolean()) fail(k, "true or false");
        return v.get<bool>();
    }
    std::string text(const char* k) const {
        const auto& v = at(k, "a string");
        if (!v.is_string()) fail(k, "a string");
        return v.get<std::string>();
    }
    Fields object(const char* k) const { return Fields(at(k, "an object"), path_ + k + "."); }
    const json& array(const char* k) const {
        const auto& v = at(k, "an array");
        if (!v.is_array()) fail(k, "an array");
        return v;
    }
    const json& raw() const { return j_; }
    const std::string& path() const { return path_; }
    [[noreturn]] void fail(const std::string& k, const char* want) const {
        std::string where = path_ + k;
        if (k.empty() && !where.empty()) where.pop_back();  // the object itself: "phases[]"
        throw RunReportError("run report: " + (where.empty() ? "" : where + ": ") + "expected " + want);
    }

private:
    const json& j_;
    std::string path_;
};

BoundTimes bounds_from(const Fields& f) {
    BoundTimes b;
    b.hbm_ns = f.number("hbm_ns");
    b.dma_ns = f.number("dma_ns");
    b.dma_plateau_ns = f.number("dma_plateau_ns");
    b.dge_ns = f.number("dge_ns");
    for (Engine e : kAllEngines) b.engine_ns[size_t(e)] = f.number((std::string(engine_name(e)) + "_ns").c_str());
    return b;
}

Binding binding_from(const Fields& f) {
    Binding b;
    b.unit = f.text("unit");
    b.bound_ns = f.number("bound_ns");
    b.versus = f.text("versus");
    b.versus_ns = f.number("versus_ns");
    b.ratio = f.number("ratio");
    b.duration_over_bound = f.number("duration_over_bound");
    b.summary = f.text("summary");
    return b;
}

SummaryValue summary_value(const Fields& f, const std::string& name, const json& v) {
    if (v.is_boolean()) return v.get<bool>();
    if (v.is_number_integer()) return v.get<int64_t>();
    if (v.is_number()) return v.get<double>();
    if (v.is_string()) return v.get<std::string>();
    f.fail(name, "a number, a string or true/false");
}

// The report's own top-level fields; any other field before "latency_ns" is the kernel's.
bool generic_field(const std::string& k) {
    static const std::set<std::string> names = {
        "kernel", "config", "hardware", "lnc", "schedule", "mode", "latency_ns", "kernel_ns", "launch_ns",
        "instructions", "phases", "engines", "dma_queues", "source_lines", "dma", "hbm", "sbuf", "link",
        "bounds", "dma_fixed_cost_dominates", "notes", "kernel_summary", "uncertainty", "provenance"};
    return names.count(k) > 0;
}

}  // namespace

json to_json(const RunReport& r) {
    json j;
    j["kernel"] = r.kernel;
    j["config"] = r.config;
    j["hardware"] = r.hardware;
    j["lnc"] = r.lnc;
    j["schedule"] = r.schedule;
    if (r.estimate) j["mode"] = "estimate";  // so readers cannot take it for a simulation
    for (auto it = r.kernel_fields.begin(); it != r.kernel_fields.end(); ++it) j[it.key()] = it.value();
    j["latency_ns"] = r.latency_ns;
    j["kernel_ns"] = r.kernel_ns;
    j["launch_ns"] = r.launch_ns;
    j["instructions"] = r.instructions;
    json phases = json::array();
    for (const auto& p : r.phases) {
        json ph;
        ph["name"] = p.name;
        ph["start_ns"] = p.start_ns;
        ph["end_ns"] = p.end_ns;
        ph["duration_ns"] = p.duration_ns;
        ph["first_start_ns"] = p.first_start_ns;
        ph["bounds"] = bounds_json(p.bounds);
        ph["binding"] = binding_json(p.binding);
        ph["dma_fixed_cost_dominates"] = p.dma_fixed_cost_dominates;
        if (p.dma_fixed_cost_dominates) ph["dma_note"] = p.dma_note;
        phases.push_back(ph);
    }
    j["phases"] = phases;
    json engines = json::object();
    for (const auto& e : r.engines) {
        json ej;
        ej["busy_ns"] = e.busy_ns;
        ej["utilization"] = e.utilization;
        ej["instructions"] = e.instructions;
        ej["semaphore_wait_ns"] = e.semaphore_wait_ns;
        ej["estimated_busy_ns"] = e.estimated_busy_ns;
        ej["estimated_share"] = e.estimated_share;
        if (!e.cores.empty()) {
            json cores = json::array();
            for (const auto& c : e.cores)
                cores.push_back({{"busy_ns", c.busy_ns}, {"instructions", c.instructions}, {"estimated_busy_ns", c.estimated_busy_ns}});
            ej["cores"] = cores;
        }
        engines[engine_name(e.engine)] = ej;
    }
    j["engines"] = engines;
    json queues = json::object();
    for (const auto& q : r.dma_queues)
        queues["core" + std::to_string(q.core) + ".q" + std::to_string(q.queue)] = {
            {"core", q.core}, {"queue", q.queue},     {"roles", q.roles},
            {"dmas", q.dmas}, {"busy_ns", q.busy_ns}, {"utilization", q.utilization}};
    j["dma_queues"] = queues;
    if (!r.source_lines.empty()) {
        json sl = json::array();
        for (const auto& l : r.source_lines)
            sl.push_back({{"source", l.source}, {"instructions", l.instructions}, {"engines", l.engines}, {"duration_ns", l.duration_ns}});
        j["source_lines"] = sl;
    }
    j["dma"] = {{"engines", r.dma.engines},
                {"engine_busy_ns_avg", r.dma.engine_busy_ns_avg},
                {"engine_utilization", r.dma.engine_utilization},
                {"dge_busy_ns", r.dma.dge_busy_ns}};
    j["hbm"] = {{"bytes_read", r.hbm.bytes_read},       {"bytes_written", r.hbm.bytes_written},
                {"achieved_gbps", r.hbm.achieved_gbps}, {"peak_gbps", r.hbm.peak_gbps},
                {"utilization", r.hbm.utilization}};
    j["sbuf"] = {{"capacity_bytes_per_partition", r.sbuf.capacity_bytes_per_partition},
                 {"peak_bytes_per_partition", r.sbuf.peak_bytes_per_partition}};
    if (r.link) j["link"] = {{"transfers", r.link->transfers}, {"busy_ns", r.link->busy_ns}};
    json bj = bounds_json(r.bounds);
    bj["binding"] = binding_json(r.binding);
    j["bounds"] = bj;
    j["dma_fixed_cost_dominates"] = r.dma_fixed_cost_dominates;
    j["notes"] = r.notes;
    j["kernel_summary"] = summary_json(r.kernel_summary);
    return j;
}

RunReport run_report_from_json(const json& in, const std::string& path) {
    const Fields f(in, path);
    RunReport r;
    r.kernel = f.text("kernel");
    r.config = f.text("config");
    r.hardware = f.text("hardware");
    r.lnc = f.integer("lnc");
    r.schedule = f.text("schedule");
    if (f.has("mode")) {
        if (f.text("mode") != "estimate") f.fail("mode", "\"estimate\"");
        r.estimate = true;
    }
    for (auto it = in.begin(); it != in.end(); ++it)
        if (!generic_field(it.key())) r.kernel_fields[it.key()] = it.value();
    r.latency_ns = f.number("latency_ns");
    r.kernel_ns = f.number("kernel_ns");
    r.launch_ns = f.number("launch_ns");
    r.instructions = f.count("instructions");
    for (const auto& pj : f.array("phases")) {
        const Fields p(pj, path + "phases[].");
        PhaseReport ph;
        ph.name = p.text("name");
        ph.start_ns = p.number("start_ns");
        ph.end_ns = p.number("end_ns");
        ph.duration_ns = p.number("duration_ns");
        ph.first_start_ns = p.number("first_start_ns");
        ph.bounds = bounds_from(p.object("bounds"));
        ph.binding = binding_from(p.object("binding"));
        ph.dma_fixed_cost_dominates = p.flag("dma_fixed_cost_dominates");
        if (p.has("dma_note")) ph.dma_note = p.text("dma_note");
        r.phases.push_back(std::move(ph));
    }
    const Fields engines = f.object("engines");
    for (auto it = engines.raw().begin(); it != engines.raw().end(); ++it) {
        const Fields e(it.value(), path + "engines." + it.key() + ".");
        EngineReport er;
        const auto engine = engine_from_name(it.key());
        if (!engine) f.fail("engines." + it.key(), "an engine name (sync, act, dve, pool, pe)");
        er.engine = *engine;
        er.busy_ns = e.number("busy_ns");
        er.utilization = e.number("utilization");
        er.instructions = e.count("instructions");
        er.semaphore_wait_ns = e.number("semaphore_wait_ns");
        er.estimated_busy_ns = e.number("estimated_busy_ns");
        er.estimated_share = e.number("estimated_share");
        if (e.has("cores"))
            for (const auto& cj : e.array("cores")) {
                const Fields c(cj, e.path() + "cores[].");
                er.cores.push_back({c.number("busy_ns"), c.count("instructions"), c.number("estimated_busy_ns")});
            }
        r.engines.push_back(std::move(er));
    }
    const Fields queues = f.object("dma_queues");
    for (auto it = queues.raw().begin(); it != queues.raw().end(); ++it) {
        const Fields q(it.value(), path + "dma_queues." + it.key() + ".");
        r.dma_queues.push_back({q.integer("core"), q.integer("queue"), q.text("roles"), q.count("dmas"),
                                q.number("busy_ns"), q.number("utilization")});
    }
    if (f.has("source_lines"))
        for (const auto& lj : f.array("source_lines")) {
            const Fields l(lj, path + "source_lines[].");
            r.source_lines.push_back({l.text("source"), l.count("instructions"), l.text("engines"), l.number("duration_ns")});
        }
    const Fields d = f.object("dma");
    r.dma = {d.integer("engines"), d.number("engine_busy_ns_avg"), d.number("engine_utilization"), d.number("dge_busy_ns")};
    const Fields h = f.object("hbm");
    r.hbm = {h.count("bytes_read"), h.count("bytes_written"), h.number("achieved_gbps"), h.number("peak_gbps"),
             h.number("utilization")};
    const Fields sb = f.object("sbuf");
    r.sbuf.capacity_bytes_per_partition = sb.count("capacity_bytes_per_partition");
    for (const auto& v : sb.array("peak_bytes_per_partition")) {
        if (!v.is_number_unsigned()) sb.fail("peak_bytes_per_partition", "an array of counts");
        r.sbuf.peak_bytes_per_partition.push_back(v.get<uint64_t>());
    }
    if (f.has("link")) {
        const Fields l = f.object("link");
        r.link = LinkReport{l.count("transfers"), l.number("busy_ns")};
    }
    const Fields b = f.object("bounds");
    r.bounds = bounds_from(b);
    r.binding = binding_from(b.object("binding"));
    r.dma_fixed_cost_dominates = f.flag("dma_fixed_cost_dominates");
    for (const auto& n : f.array("notes")) {
        if (!n.is_string()) f.fail("notes", "an array of strings");
        r.notes.push_back(n.get<std::string>());
    }
    if (f.has("kernel_summary")) {
        const Fields s = f.object("kernel_summary");
        for (auto it = s.raw().begin(); it != s.raw().end(); ++it)
            r.kernel_summary.set(it.key(), summary_value(s, it.key(), it.value()));
    }
    return r;
}

// ---- text ----

namespace {
std::string us(double ns) {
    std::ostringstream o;
    o << std::fixed << std::setprecision(2) << ns / 1000.0 << " us";
    return o.str();
}
std::string pct(double f) {
    std::ostringstream o;
    o << std::fixed << std::setprecision(1) << f * 100.0 << "%";
    return o.str();
}
}  // namespace

void print_run_report(const RunReport& r, std::ostream& out) {
    out << "kernel      " << r.kernel << " on " << r.hardware << ", lnc=" << r.lnc << ", schedule=" << r.schedule << "\n";
    if (const KernelEntry* e = find_kernel(r.kernel); e && e->print_run_lines) e->print_run_lines(r.kernel_fields, out);
    out << "latency     " << us(r.latency_ns) << " (kernel " << us(r.kernel_ns) << " + launch " << us(r.launch_ns)
        << "), " << r.instructions << " instructions\n";
    out << "phases\n";
    for (const auto& p : r.phases)
        out << "  " << std::left << std::setw(9) << p.name << std::right << " " << std::setw(11) << us(p.start_ns)
            << " -> " << std::setw(11) << us(p.end_ns) << "  (" << us(p.duration_ns) << ")  " << p.binding.summary
            << (p.first_start_ns < p.start_ns ? "; its first instruction began at " + us(p.first_start_ns) : "") << "\n";
    out << "engines     busy / utilization / instructions / semaphore wait / busy priced by estimates\n";
    for (const auto& e : r.engines)
        out << "  " << std::left << std::setw(6) << engine_name(e.engine) << std::right << std::setw(12) << us(e.busy_ns)
            << "  " << std::setw(6) << pct(e.utilization) << "  " << e.instructions << "  "
            << us(e.semaphore_wait_ns) << "  " << us(e.estimated_busy_ns) << " (" << pct(e.estimated_share) << ")\n";
    out << "dma queues  busy / utilization / DMAs\n";
    for (const auto& q : r.dma_queues)
        out << "  " << std::left << std::setw(9) << ("core" + std::to_string(q.core) + ".q" + std::to_string(q.queue))
            << std::right << std::setw(12) << us(q.busy_ns) << "  " << std::setw(6) << pct(q.utilization) << "  "
            << q.dmas << "  " << q.roles << "\n";
    out << "dma engines avg busy " << us(r.dma.engine_busy_ns_avg) << " (" << pct(r.dma.engine_utilization)
        << "), DGE issue busy " << us(r.dma.dge_busy_ns) << "\n";
    out << "hbm         read " << std::fixed << std::setprecision(2) << double(r.hbm.bytes_read) / 1048576.0
        << " MiB, written " << double(r.hbm.bytes_written) / 1048576.0 << " MiB, achieved " << r.hbm.achieved_gbps
        << " GB/s of " << r.hbm.peak_gbps << " (" << pct(r.hbm.utilization) << ")\n";
    if (r.link) out << "link        " << r.link->transfers << " sendrecv exchanges, busy " << us(r.link->busy_ns) << "\n";
    out << "bounds      hbm " << us(r.bounds.hbm_ns) << ", dma " << us(r.bounds.dma_ns) << " (plateau "
        << us(r.bounds.dma_plateau_ns) << "), dge " << us(r.bounds.dge_ns);
    for (Engine e : kAllEngines)
        if (r.bounds.engine_ns[size_t(e)] > 0) out << ", " << engine_name(e) << " " << us(r.bounds.engine_ns[size_t(e)]);
    out << "\n            whole kernel: " << r.binding.summary << "\n";
    if (!r.source_lines.empty()) {
        out << "source      the kernel's lines by the summed duration of their instructions (top 10)\n";
        size_t shown = 0;
        for (const auto& l : r.source_lines) {
            if (++shown > 10) break;
            out << "  " << std::left << std::setw(44) << l.source << std::right << std::setw(12) << us(l.duration_ns)
                << "  " << l.instructions << "  " << l.engines << "\n";
        }
    }
    for (const auto& n : r.notes) out << "note        " << n << "\n";
}

std::string phase_bindings(const RunReport& r) {
    std::string s;
    for (const auto& p : r.phases) s += (s.empty() ? "" : ", ") + p.name + " " + p.binding.unit;
    return s;
}

}  // namespace bnsim
