#include "numerics/hazard_checker.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "numerics/device_memory.h"
#include "numerics/runners.h"

namespace bnsim::num {
namespace {

constexpr double kUnset = std::numeric_limits<double>::quiet_NaN();

bool intersect(const Region& a, const Region& b, Region& out) {
    if (!a.overlaps(b)) return false;
    out = a;
    out.row_lo = std::max(a.row_lo, b.row_lo);
    out.row_hi = std::min(a.row_hi, b.row_hi);
    out.byte_lo = std::max(a.byte_lo, b.byte_lo);
    out.byte_hi = std::min(a.byte_hi, b.byte_hi);
    return true;
}

bool first_overlap(const std::vector<Region>& xs, const std::vector<Region>& ys, Region& out) {
    for (const auto& x : xs)
        for (const auto& y : ys)
            if (intersect(x, y, out)) return true;
    return false;
}

}  // namespace

std::string describe_instruction(const Instruction& ins) {
    std::ostringstream o;
    o << "#" << ins.id << " core" << int(ins.core) << " " << engine_name(ins.engine) << " " << opcode_name(ins.opcode);
    if (ins.tag.what && *ins.tag.what) o << " '" << ins.tag.what << "'";
    if (ins.tag.phase) o << " phase " << int(ins.tag.phase);
    if (ins.tag.unit >= 0) o << " unit " << ins.tag.unit;
    if (ins.tag.slot >= 0) o << " slot " << ins.tag.slot;
    return o.str();
}

HazardChecker::HazardChecker(const Trace& as_run) : truth_(as_run) {
    derive_dependencies(truth_);
    const auto& ins = truth_.instructions();
    const size_t n = ins.size();
    cross_.resize(n);
    start_.assign(n, kUnset);
    end_.assign(n, kUnset);
    start_seq_.assign(n, 0);
    end_seq_.assign(n, 0);
    const auto match = match_sendrecvs(truth_);
    for (const auto& s : ins) {
        if (s.opcode != Opcode::SendRecv || s.srcs.size() < 2 || match[s.id] < 0) continue;
        const Region& r = s.srcs[1].region;
        const uint32_t m = uint32_t(match[s.id]);
        int64_t last_before = -1, first_after = -1;
        for (const auto& w : ins) {
            if (w.core != r.core) continue;
            bool hit = false;
            for (const auto& wr : w.writes()) hit = hit || wr.overlaps(r);
            if (!hit) continue;
            if (w.id < m) last_before = w.id;
            else if (w.id > m && first_after < 0) first_after = w.id;
        }
        if (last_before >= 0) cross_[s.id].push_back(uint32_t(last_before));
        if (first_after >= 0) cross_[size_t(first_after)].push_back(s.id);
    }
}

void HazardChecker::on_start(const Instruction& ins, double t) {
    if (ins.id >= start_.size()) return;
    start_[ins.id] = t;
    start_seq_[ins.id] = ++seq_;
}
void HazardChecker::on_finish(const Instruction& ins, double t) {
    if (ins.id >= end_.size()) return;
    end_[ins.id] = t;
    end_seq_[ins.id] = ++seq_;
}

std::vector<Hazard> HazardChecker::check() const {
    std::vector<Hazard> out;
    const auto& ins = truth_.instructions();
    edges_ = 0;
    for (const auto& b : ins) {
        if (start_seq_[b.id] == 0 || end_seq_[b.id] == 0) {
            Hazard h;
            h.instr = h.other = b.id;
            h.kind = "not-executed";
            h.text = describe_instruction(b) + " never " + (start_seq_[b.id] == 0 ? "started" : "finished");
            out.push_back(h);
            continue;
        }
        auto check_edge = [&](uint32_t a_id) {
            ++edges_;
            const Instruction& a = ins[a_id];
            if (end_seq_[a_id] != 0 && end_seq_[a_id] < start_seq_[b.id]) return;
            Hazard h;
            h.instr = b.id;
            h.other = a_id;
            h.start_ns = start_[b.id];
            h.other_end_ns = end_[a_id];
            const auto aw = a.writes(), ar = a.reads(), bw = b.writes(), br = b.reads();
            if (first_overlap(aw, br, h.region)) h.kind = "RAW";
            else if (first_overlap(ar, bw, h.region)) h.kind = "WAR";
            else if (first_overlap(aw, bw, h.region)) h.kind = "WAW";
            else h.kind = "order";
            std::ostringstream o;
            o << describe_instruction(b) << " started at " << h.start_ns << " ns";
            if (h.kind == "RAW") o << " reading ";
            else if (h.kind == "order") o << " touching ";
            else o << " writing ";
            o << describe_region(truth_, h.region) << " while " << describe_instruction(a)
              << (h.kind == "RAW" ? " (its writer)" : h.kind == "WAR" ? " (a reader)" : " (a writer)");
            if (end_seq_[a_id] == 0) o << " never finished";
            else if (end_seq_[a_id] > start_seq_[b.id] && end_[a_id] <= start_[b.id])
                o << " finished at " << end_[a_id] << " ns but was reported after it started";
            else o << " finished only at " << end_[a_id] << " ns";
            o << " [" << h.kind << "]";
            h.text = o.str();
            out.push_back(h);
        };
        for (uint32_t a : b.deps) check_edge(a);
        for (uint32_t a : cross_[b.id]) check_edge(a);
    }
    return out;
}

}  // namespace bnsim::num
