#include "sim/report/timeline.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <ostream>
#include <set>

#include <nlohmann/json.hpp>

#include "models/cost_model.h"

namespace bnsim {
namespace {

using json = nlohmann::ordered_json;

double us(double ns) { return std::round(ns * 1000.0) / 1e6; }  // ps-rounded microseconds

constexpr int kTidDge = 10;
constexpr int kTidQueueBase = 100;  // + queue * kLanes + lane
constexpr int kLanes = 8;

struct Slice {
    int pid = 0, tid = 0;
    double ts = 0, dur = 0;
};

// Places slices on the first lane of a track that is free at their start.
struct Lanes {
    std::vector<double> end;
    int place(double s, double e) {
        for (size_t i = 0; i < end.size(); ++i)
            if (end[i] <= s + 1e-9) {
                end[i] = e;
                return int(i);
            }
        if (end.size() < size_t(kLanes)) {
            end.push_back(e);
            return int(end.size() - 1);
        }
        // Out of lanes: the one that frees first.
        size_t k = size_t(std::min_element(end.begin(), end.end()) - end.begin());
        end[k] = std::max(end[k], e);
        return int(k);
    }
};

json args_of(const Instruction& in) {
    json a;
    a["id"] = in.id;
    a["what"] = in.tag.what;
    // The NKI kernel's file and line that issued it (traced kernels and trace files only).
    if (in.tag.source) a["source"] = in.tag.source;
    a["phase"] = in.tag.phase;
    if (in.tag.unit >= 0) a["tile"] = in.tag.unit;
    if (in.tag.slot >= 0) a["slot"] = in.tag.slot;
    if (in.tag.ctile >= 0) a["channel_tile"] = in.tag.ctile;
    a["partitions"] = in.partitions;
    a["free_elems"] = in.free_elems;
    a["dtype"] = dtype_name(in.cost_dtype());
    return a;
}

}  // namespace

void write_timeline(std::ostream& out, const Trace& trace, const HwConfig& hw, const SimResult& r,
                    const Provenance& provenance) {
    CostModel cost(hw);
    json events = json::array();
    std::vector<Slice> main(trace.size());
    std::map<std::pair<int, int>, Lanes> queue_lanes, dge_lanes;
    std::set<std::pair<int, int>> used_tids;
    std::map<std::pair<int, int>, std::string> tid_names;

    auto slice = [&](const char* name, const char* cat, int pid, int tid, double s_ns, double e_ns, json args) {
        json ev;
        ev["name"] = name;
        ev["cat"] = cat;
        ev["ph"] = "X";
        ev["pid"] = pid;
        ev["tid"] = tid;
        ev["ts"] = us(s_ns);
        ev["dur"] = us(std::max(0.0, e_ns - s_ns));
        ev["args"] = std::move(args);
        events.push_back(std::move(ev));
        used_tids.insert({pid, tid});
    };

    std::vector<uint32_t> dma_ids;
    for (const auto& in : trace.instructions()) {
        const InstrTiming& t = r.timing[in.id];
        const int pid = in.core;
        const int etid = int(in.engine);
        tid_names[{pid, etid}] = engine_name(in.engine);
        json a = args_of(in);
        if (t.waited_on >= 0) a["waited_on"] = t.waited_on;
        if (t.ready_ns > t.head_ns + 1e-9) {
            json w;
            w["id"] = in.id;
            w["for"] = t.waited_on;
            if (t.waited_on >= 0) {
                const Instruction& d = trace.instructions()[size_t(t.waited_on)];
                w["for_what"] = d.tag.what;
                w["for_engine"] = engine_name(d.engine);
            }
            slice("wait", "semaphore", pid, etid, t.head_ns, t.ready_ns, w);
        }
        if (in.is_dma()) {
            const double trig_end = in.dma.dge == DgeMode::hardware ? t.ready_ns + cost.engine_ns(in) : t.issue_end_ns;
            json ta = a;
            ta["dge"] = dge_name(in.dma.dge);
            ta["queue"] = in.dma.queue;
            slice("dma_trigger", "engine", pid, etid, t.ready_ns, trig_end, ta);
            dma_ids.push_back(in.id);
        } else {
            const double s = in.opcode == Opcode::SendRecv ? t.ready_ns : t.start_ns;
            slice(opcode_name(in.opcode), "engine", pid, etid, s, t.end_ns, a);
            main[in.id] = Slice{pid, etid, s, t.end_ns - s};
        }
    }
    // DMA slices, placed on lanes in time order (first fit on time-sorted intervals uses as few
    // lanes as the overlap needs: the DGE tracks show its units, a queue's extra lanes its overlap).
    auto by = [&](auto key) {
        std::vector<uint32_t> v = dma_ids;
        std::stable_sort(v.begin(), v.end(), [&](uint32_t a, uint32_t b) { return key(a) < key(b); });
        return v;
    };
    for (uint32_t id : by([&](uint32_t i) { return r.timing[i].issue_start_ns; })) {
        const Instruction& in = trace.instructions()[id];
        const InstrTiming& t = r.timing[id];
        if (in.dma.dge != DgeMode::hardware) continue;
        const int pid = in.core;
        const int lane = dge_lanes[{pid, 0}].place(t.issue_start_ns, t.issue_end_ns);
        const int tid = kTidDge + lane;
        tid_names[{pid, tid}] = "hw DGE " + std::to_string(lane);
        slice("dge_issue", "dma", pid, tid, t.issue_start_ns, t.issue_end_ns, args_of(in));
    }
    for (uint32_t id : by([&](uint32_t i) { return r.timing[i].start_ns; })) {
        const Instruction& in = trace.instructions()[id];
        const InstrTiming& t = r.timing[id];
        const int pid = in.core;
        const int lane = queue_lanes[{pid, in.dma.queue}].place(t.start_ns, t.data_end_ns);
        const int qtid = kTidQueueBase + in.dma.queue * kLanes + lane;
        tid_names[{pid, qtid}] =
            "dma q" + std::to_string(in.dma.queue) + (lane ? " #" + std::to_string(lane + 1) : std::string());
        json da = args_of(in);
        da["bytes"] = in.srcs.empty() ? 0 : in.srcs[0].region.bytes();
        da["dge"] = dge_name(in.dma.dge);
        da["triggered_us"] = us(t.ready_ns);
        da["complete_us"] = us(t.end_ns);
        slice(opcode_name(in.opcode), "dma", pid, qtid, t.start_ns, t.data_end_ns, da);
        main[id] = Slice{pid, qtid, t.start_ns, t.data_end_ns - t.start_ns};
    }
    // Flow arrows: from the dependency that released a waiting instruction to the instruction.
    for (const auto& in : trace.instructions()) {
        const InstrTiming& t = r.timing[in.id];
        if (t.waited_on < 0 || t.ready_ns <= t.head_ns + 1e-9) continue;
        const Slice& src = main[size_t(t.waited_on)];
        const int dtid = in.is_dma() ? int(in.engine) : main[in.id].tid;
        json s;
        s["name"] = "dependency";
        s["cat"] = "dependency";
        s["ph"] = "s";
        s["id"] = in.id;
        s["pid"] = src.pid;
        s["tid"] = src.tid;
        s["ts"] = us(src.ts + src.dur / 2);
        events.push_back(s);
        json f;
        f["name"] = "dependency";
        f["cat"] = "dependency";
        f["ph"] = "f";
        f["bp"] = "e";
        f["id"] = in.id;
        f["pid"] = in.core;
        f["tid"] = dtid;
        f["ts"] = us(t.ready_ns);
        events.push_back(f);
    }
    // Track names and order.
    json meta = json::array();
    for (int c = 0; c < trace.num_cores; ++c) {
        meta.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", c}, {"tid", 0},
                        {"args", {{"name", "core " + std::to_string(c)}}}});
        meta.push_back({{"name", "process_sort_index"}, {"ph", "M"}, {"pid", c}, {"tid", 0},
                        {"args", {{"sort_index", c}}}});
    }
    for (const auto& [key, name] : tid_names) {
        meta.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", key.first}, {"tid", key.second},
                        {"args", {{"name", name}}}});
        meta.push_back({{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", key.first}, {"tid", key.second},
                        {"args", {{"sort_index", key.second}}}});
    }
    json doc;
    doc["displayTimeUnit"] = "ns";
    doc["otherData"] = {{"generator", "bnsim run --timeline"},
                        {"latency_ns", r.latency_ns},
                        {"kernel_ns", r.kernel_ns},
                        {"schedule", r.policy}};
    for (auto& m : meta) events.push_back(std::move(m));
    doc["traceEvents"] = std::move(events);
    doc["provenance"] = provenance.json();
    out << doc.dump() << "\n";
}

}  // namespace bnsim
