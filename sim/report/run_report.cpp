#include "sim/config/run_config.h"
#include "sim/report/run_report.h"

#include "kernels/kernel_entry.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <iomanip>
#include <map>
#include <memory>
#include <ostream>
#include <set>
#include <sstream>
#include <string_view>
#include <tuple>
#include <vector>

#include "models/cost_model.h"
#include "models/dma_lifecycle.h"

namespace bnsim {

using json = nlohmann::ordered_json;

namespace {

// Rounds to 1 ps so reports do not carry floating-point noise.
double ps(double ns) { return std::round(ns * 1000.0) / 1000.0; }

// Busy time each unit would need for a set of instructions (the lower bounds).
struct Bounds {
    double engine[kNumEngines] = {};  // summed cost-model time, max over cores
    double dma_ns = 0;                // max(descriptor time / engines, longest queue window), max over cores
    double dma_plateau_ns = 0;        // the same bytes at the engines' plateau rate
    double dge_ns = 0;                // hardware DGE issue / units, max over cores
    double hbm_ns = 0;                // HBM bytes / stack bandwidth (shared by the pair)
    uint64_t dmas = 0, descriptors = 0, desc_bytes = 0, hbm_bytes = 0;
};

// The bounds of one set of instructions, added one at a time in program order.
class BoundsSum {
public:
    BoundsSum(const HwConfig& hw, int num_cores)
        : hw_(hw), rule_(hw), nc_(std::max(1, num_cores)), eng_(size_t(nc_)), dma_(size_t(nc_), 0),
          plateau_(size_t(nc_), 0), dge_(size_t(nc_), 0), queue_win_(size_t(nc_), 0),
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
        if (in.dma.dge == DgeMode::hardware) dge_[in.core] += hw_.dma.issue_ns;
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
            b.dge_ns = std::max(b.dge_ns, dge_[size_t(c)] / hw_.dma.hw_dge_units);
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
    std::vector<double> dma_, plateau_, dge_, queue_win_;
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

json bounds_json(const Bounds& b) {
    json j;
    j["hbm_ns"] = ps(b.hbm_ns);
    j["dma_ns"] = ps(b.dma_ns);
    j["dma_plateau_ns"] = ps(b.dma_plateau_ns);
    j["dge_ns"] = ps(b.dge_ns);
    for (Engine e : kAllEngines) j[std::string(engine_name(e)) + "_ns"] = ps(b.engine[int(e)]);
    return j;
}

// Which bound binds, and by how much over the runner-up of the other kind (engines vs data movement).
json binding_json(const Bounds& b, double duration_ns, std::string& summary, bool own_window = false) {
    std::vector<std::pair<std::string, double>> all;
    for (Engine e : kAllEngines) all.emplace_back(engine_name(e), b.engine[int(e)]);
    all.emplace_back("dma", b.dma_ns);
    all.emplace_back("dge", b.dge_ns);
    all.emplace_back("hbm", b.hbm_ns);
    auto top = std::max_element(all.begin(), all.end(), [](auto& x, auto& y) { return x.second < y.second; });
    const bool movement = top->first == "dma" || top->first == "hbm" || top->first == "dge";
    // Compare against the largest bound of the other kind.
    std::pair<std::string, double> other{"", 0};
    for (const auto& p : all) {
        const bool pm = p.first == "dma" || p.first == "hbm" || p.first == "dge";
        if (pm != movement && p.second > other.second) other = p;
    }
    json j;
    j["unit"] = top->first;
    j["bound_ns"] = ps(top->second);
    j["versus"] = other.first;
    j["versus_ns"] = ps(other.second);
    const double ratio = other.second > 0 ? top->second / other.second : 0;
    j["ratio"] = std::round(ratio * 100) / 100;
    j["duration_over_bound"] = top->second > 0 ? std::round(duration_ns / top->second * 100) / 100 : 0;
    std::ostringstream o;
    o << unit_label(top->first) << "-bound";
    if (other.second > 0)
        o << ", " << std::fixed << std::setprecision(1) << ratio << "x over its " << unit_label(other.first)
          << " time";
    if (top->second > 0)
        o << "; runs at " << std::fixed << std::setprecision(2) << duration_ns / top->second << "x that bound"
          << (own_window ? " (counted from the previous phase's end)" : "");
    summary = o.str();
    j["summary"] = summary;
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
struct EstimatedTriggers {
    bool trigger_cycles = false, sw_dge_issue = false;  // dma.trigger_cycles, dma.sw_dge_issue_ns
    explicit EstimatedTriggers(const HwConfig& hw) {
        auto estimate = [&](const char* name) {
            const auto it = hw.provenance.find(name);
            return it != hw.provenance.end() && it->second.estimate;
        };
        trigger_cycles = estimate("dma.trigger_cycles");
        sw_dge_issue = estimate("dma.sw_dge_issue_ns");
    }
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

json run_report_json(const RunConfig& cfg, const GeneratedKernel& k, const SimResult& r) {
    return run_report_json(cfg, k, r, *trace_figures(cfg.hw, k.trace));
}

json run_report_json(const RunConfig& cfg, const GeneratedKernel& k, const SimResult& r, const TraceFigures& figures) {
    const Trace& trace = k.trace;
    json j;
    j["kernel"] = cfg.kernel;
    j["config"] = cfg.file;
    j["hardware"] = cfg.hw.name;
    j["lnc"] = cfg.lnc;
    j["schedule"] = r.policy;
    if (cfg.entry && cfg.entry->add_run_fields) cfg.entry->add_run_fields(k, j);
    j["latency_ns"] = ps(r.latency_ns);
    j["kernel_ns"] = ps(r.kernel_ns);
    j["launch_ns"] = ps(cfg.hw.launch.fixed_ns);
    j["instructions"] = trace.size();

    json notes = json::array();
    // Phases.
    // A phase spans its first instruction's start to its last one's end. Phases overlap (the
    // scheduler prefetches phase 2's first loads while phase 1 computes), so the bound check
    // uses the part after the previous phase ended.
    json phases = json::array();
    const KernelBounds& bounds = figures.bounds;
    std::map<int, std::pair<double, double>> span;  // phase -> (first start, last end)
    for (const auto& in : trace.instructions()) {
        auto& [s, e] = span.try_emplace(in.tag.phase, 1e300, 0.0).first->second;
        s = std::min(s, r.timing[in.id].start_ns);
        e = std::max(e, r.timing[in.id].end_ns);
    }
    double prev_end = 0;
    for (const auto& [p, b] : bounds.phase) {  // every phase, in order
        const auto [s, e] = span.at(p);
        const double own_start = std::min(e, std::max(s, prev_end));
        prev_end = std::max(prev_end, e);
        json ph;
        ph["name"] = p == 0 ? std::string("setup") : "phase " + std::to_string(p);
        ph["start_ns"] = ps(s);
        ph["end_ns"] = ps(e);
        ph["duration_ns"] = ps(e - s);
        ph["own_start_ns"] = ps(own_start);
        ph["bounds"] = bounds_json(b);
        std::string summary;
        ph["binding"] = binding_json(b, e - own_start, summary, own_start > s + 1e-3);
        std::string why;
        const bool dom = dma_fixed_dominates(b, cfg.hw, why);
        ph["dma_fixed_cost_dominates"] = dom;
        if (dom) {
            ph["dma_note"] = why;
            notes.push_back(ph["name"].get<std::string>() + ": " + why);
        }
        phases.push_back(ph);
    }
    j["phases"] = phases;

    // Engines: busy time (max over cores) and utilization.
    const double kn = std::max(r.kernel_ns, 1e-9);
    json engines = json::object();
    // Busy time priced by estimates: per instruction (estimated_engine_ns), plus what the engine's
    // state added beyond its instructions' own costs (ACT table switches) when that is an estimate.
    const auto& estimated = figures.estimated_ns;
    const auto& own = figures.own_ns;
    // Per engine, the time its instructions waited on semaphores, summed in program order.
    std::array<double, kNumEngines> wait{};
    for (const auto& in : trace.instructions())
        wait[size_t(in.engine)] += r.timing[in.id].ready_ns - r.timing[in.id].head_ns;
    const auto table = cfg.hw.provenance.find("act.table_switch_ns");
    const bool switch_estimated = table != cfg.hw.provenance.end() && table->second.estimate;
    for (Engine e : kAllEngines) {
        double busy = 0, est = 0;
        uint64_t n = 0;
        json per_core = json::array();
        for (int c = 0; c < trace.num_cores; ++c) {
            const UnitStats u = r.units.cores.at(size_t(c)).engines[size_t(e)];
            double ce = estimated[size_t(c)][size_t(e)];
            if (switch_estimated) ce += std::max(0.0, u.busy_ns - own[size_t(c)][size_t(e)]);
            if (u.busy_ns > busy || (u.busy_ns == busy && ce > est)) busy = u.busy_ns, est = ce;
            n += u.instructions;
            per_core.push_back({{"busy_ns", ps(u.busy_ns)}, {"instructions", u.instructions},
                                {"estimated_busy_ns", ps(ce)}});
        }
        if (n == 0) continue;
        json ej;
        ej["busy_ns"] = ps(busy);
        ej["utilization"] = std::round(busy / kn * 10000) / 10000;
        ej["instructions"] = n;
        ej["semaphore_wait_ns"] = ps(wait[size_t(e)]);
        // Of the busy time (the busiest core's), how much estimated cost rows or parameters priced.
        ej["estimated_busy_ns"] = ps(est);
        ej["estimated_share"] = busy > 0 ? std::round(est / busy * 10000) / 10000 : 0.0;
        if (trace.num_cores > 1) ej["cores"] = per_core;
        engines[engine_name(e)] = ej;
    }
    j["engines"] = engines;

    // DMA queues.
    json queues = json::object();
    const auto& roles = figures.queue_roles;
    for (int c = 0; c < trace.num_cores; ++c)
        for (const auto& [q, u] : r.units.cores.at(size_t(c)).dma_queues) {
            json qj;
            qj["core"] = c;
            qj["queue"] = q;
            const auto role = roles.find({c, q});
            qj["roles"] = role == roles.end() ? std::string() : role->second;
            qj["dmas"] = u.instructions;
            qj["busy_ns"] = ps(u.busy_ns);
            qj["utilization"] = std::round(u.busy_ns / kn * 10000) / 10000;
            queues["core" + std::to_string(c) + ".q" + std::to_string(q)] = qj;
        }
    j["dma_queues"] = queues;

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
        if (!lines.empty()) {
            std::vector<std::pair<std::string, Line>> order(lines.begin(), lines.end());
            std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.second.ns > b.second.ns; });
            json sl = json::array();
            for (const auto& [src, l] : order) {
                std::string engines;
                for (Engine e : kAllEngines)
                    if (l.engines & (1u << unsigned(e))) engines += std::string(engines.empty() ? "" : ",") + engine_name(e);
                sl.push_back({{"source", src}, {"instructions", l.n}, {"engines", engines}, {"duration_ns", ps(l.ns)}});
            }
            j["source_lines"] = sl;
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
        json d;
        d["engines"] = n_eng;
        d["engine_busy_ns_avg"] = ps(n_eng ? eng_busy / n_eng : 0);
        d["engine_utilization"] = n_eng ? std::round(eng_busy / n_eng / kn * 10000) / 10000 : 0;
        double dge = 0;
        for (const auto& core : r.units.cores) dge = std::max(dge, core.dge.busy_ns);
        d["dge_busy_ns"] = ps(dge);
        j["dma"] = d;
    }

    // HBM.
    {
        json h;
        h["bytes_read"] = r.hbm_bytes_read;
        h["bytes_written"] = r.hbm_bytes_written;
        const double gbps = double(r.hbm_bytes_read + r.hbm_bytes_written) / kn;
        h["achieved_gbps"] = std::round(gbps * 100) / 100;
        h["peak_gbps"] = cfg.hw.hbm.bandwidth_gbps;
        h["utilization"] = std::round(gbps / cfg.hw.hbm.bandwidth_gbps * 10000) / 10000;
        j["hbm"] = h;
    }
    {
        json sb;
        sb["capacity_bytes_per_partition"] = cfg.hw.sbuf.bytes_per_partition;
        sb["peak_bytes_per_partition"] = r.sbuf_peak_bytes;  // per core: highest byte any instruction touches
        j["sbuf"] = sb;
    }
    if (r.units.has_link) j["link"] = {{"transfers", r.units.link.instructions}, {"busy_ns", ps(r.units.link.busy_ns)}};

    // Whole-kernel lower bounds.
    const Bounds& all = bounds.all;
    json bj = bounds_json(all);
    std::string summary;
    bj["binding"] = binding_json(all, r.kernel_ns, summary);
    j["bounds"] = bj;
    std::string why;
    const bool dom = dma_fixed_dominates(all, cfg.hw, why);
    j["dma_fixed_cost_dominates"] = dom;
    if (dom) notes.push_back("kernel: " + why);
    j["notes"] = notes;
    j["kernel_summary"] = summary_json(k.summary);
    return j;
}

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

void print_run_report(const json& r, std::ostream& out) {
    out << "kernel      " << r["kernel"].get<std::string>() << " on " << r["hardware"].get<std::string>()
        << ", lnc=" << r["lnc"] << ", schedule=" << r["schedule"].get<std::string>() << "\n";
    if (const KernelEntry* e = find_kernel(r["kernel"].get<std::string>()); e && e->print_run_lines) e->print_run_lines(r, out);
    out << "latency     " << us(r["latency_ns"].get<double>()) << " (kernel " << us(r["kernel_ns"].get<double>())
        << " + launch " << us(r["launch_ns"].get<double>()) << "), " << r["instructions"] << " instructions\n";
    out << "phases\n";
    for (const auto& p : r["phases"])
        out << "  " << std::left << std::setw(9) << p["name"].get<std::string>() << std::right << " "
            << std::setw(11) << us(p["start_ns"].get<double>()) << " -> " << std::setw(11)
            << us(p["end_ns"].get<double>()) << "  (" << us(p["duration_ns"].get<double>()) << ")  "
            << p["binding"]["summary"].get<std::string>() << "\n";
    out << "engines     busy / utilization / instructions / semaphore wait / busy priced by estimates\n";
    for (auto it = r["engines"].begin(); it != r["engines"].end(); ++it)
        out << "  " << std::left << std::setw(6) << it.key() << std::right << std::setw(12)
            << us(it.value()["busy_ns"].get<double>()) << "  " << std::setw(6)
            << pct(it.value()["utilization"].get<double>()) << "  " << std::setw(6) << it.value()["instructions"]
            << "  " << us(it.value()["semaphore_wait_ns"].get<double>()) << "  "
            << us(it.value()["estimated_busy_ns"].get<double>()) << " ("
            << pct(it.value()["estimated_share"].get<double>()) << ")\n";
    out << "dma queues  busy / utilization / DMAs\n";
    for (auto it = r["dma_queues"].begin(); it != r["dma_queues"].end(); ++it)
        out << "  " << std::left << std::setw(9) << it.key() << std::right << std::setw(12)
            << us(it.value()["busy_ns"].get<double>()) << "  " << std::setw(6)
            << pct(it.value()["utilization"].get<double>()) << "  " << std::setw(5) << it.value()["dmas"] << "  "
            << it.value()["roles"].get<std::string>() << "\n";
    out << "dma engines avg busy " << us(r["dma"]["engine_busy_ns_avg"].get<double>()) << " ("
        << pct(r["dma"]["engine_utilization"].get<double>()) << "), DGE issue busy "
        << us(r["dma"]["dge_busy_ns"].get<double>()) << "\n";
    const json& h = r["hbm"];
    out << "hbm         read " << std::fixed << std::setprecision(2)
        << h["bytes_read"].get<double>() / 1048576.0 << " MiB, written "
        << h["bytes_written"].get<double>() / 1048576.0 << " MiB, achieved " << h["achieved_gbps"].get<double>()
        << " GB/s of " << h["peak_gbps"].get<double>() << " (" << pct(h["utilization"].get<double>()) << ")\n";
    if (r.contains("link"))
        out << "link        " << r["link"]["transfers"] << " sendrecv exchanges, busy "
            << us(r["link"]["busy_ns"].get<double>()) << "\n";
    const json& b = r["bounds"];
    out << "bounds      hbm " << us(b["hbm_ns"].get<double>()) << ", dma " << us(b["dma_ns"].get<double>())
        << " (plateau " << us(b["dma_plateau_ns"].get<double>()) << "), dge " << us(b["dge_ns"].get<double>());
    for (Engine e : kAllEngines) {
        const std::string k = std::string(engine_name(e)) + "_ns";
        if (b[k].get<double>() > 0) out << ", " << engine_name(e) << " " << us(b[k].get<double>());
    }
    out << "\n            whole kernel: " << b["binding"]["summary"].get<std::string>() << "\n";
    if (r.contains("source_lines")) {
        out << "source      the kernel's lines by the summed duration of their instructions (top 10)\n";
        size_t shown = 0;
        for (const auto& l : r["source_lines"]) {
            if (++shown > 10) break;
            out << "  " << std::left << std::setw(44) << l["source"].get<std::string>() << std::right << std::setw(12)
                << us(l["duration_ns"].get<double>()) << "  " << std::setw(6) << l["instructions"] << "  "
                << l["engines"].get<std::string>() << "\n";
        }
    }
    for (const auto& n : r["notes"]) out << "note        " << n.get<std::string>() << "\n";
}

std::string phase_bindings(const nlohmann::json& r) {
    std::string s;
    if (r.contains("phases") && r["phases"].is_array())
        for (const auto& p : r["phases"])
            if (p.contains("binding") && p["binding"].contains("unit"))
                s += (s.empty() ? "" : ", ") + p["name"].get<std::string>() + " " + p["binding"]["unit"].get<std::string>();
    return s;
}

nlohmann::ordered_json mark_estimate_report(const nlohmann::ordered_json& report) {
    nlohmann::ordered_json out;
    for (auto it = report.begin(); it != report.end(); ++it) {
        out[it.key()] = it.value();
        if (it.key() == "schedule") out["mode"] = "estimate";
    }
    return out;
}

}  // namespace bnsim
