#include "sim/report/phase_window.h"

#include <algorithm>

namespace bnsim {

void PhaseWindows::add(int phase, double start_ns, double end_ns) {
    auto [it, fresh] = span_.try_emplace(phase, start_ns, end_ns);
    if (fresh) return;
    it->second.first = std::min(it->second.first, start_ns);
    it->second.second = std::max(it->second.second, end_ns);
}

void PhaseWindows::add(const Instruction& in, const InstrTiming& t) {
    if (in.is_dma()) add(in.tag.phase, t.ready_ns, std::max(t.issue_end_ns, t.data_end_ns));
    else add(in.tag.phase, t.start_ns, t.end_ns);
}

std::vector<PhaseWindow> PhaseWindows::windows() const {
    std::vector<PhaseWindow> out;
    double earlier_end = 0;
    for (const auto& [phase, span] : span_) {
        const auto [first, end] = span;
        PhaseWindow w;
        w.phase = phase;
        w.first_start_ns = first;
        w.start_ns = std::min(end, std::max(first, earlier_end));
        w.end_ns = end;
        earlier_end = std::max(earlier_end, end);
        out.push_back(w);
    }
    return out;
}

}  // namespace bnsim
