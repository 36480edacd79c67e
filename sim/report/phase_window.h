#pragma once
// A phase's window: the one definition run, sweep, the profile tables and compare all use.
//
// Phases overlap: the scheduler prefetches a phase's first loads while the previous phase still
// computes. A phase's window therefore starts when it leads, at the later of its first
// instruction's start and the end of every earlier phase, and ends at its last instruction's end
// (a DMA counts from its issue, when its engine reaches it with its dependencies met, to its data's
// arrival: what a profile shows of it, so windows from a profile agree). The windows tile the kernel's timeline in phase order,
// so a phase's duration is the time it adds to the kernel and the durations sum to at most the
// kernel's time. `first_start_ns` keeps how early the phase's first instruction began.
#include <map>
#include <utility>
#include <vector>

#include "sim/simulate/simulate.h"
#include "trace/instruction.h"

namespace bnsim {

struct PhaseWindow {
    int phase = 0;              // 0 is setup, then 1, 2, ...
    double first_start_ns = 0;  // its earliest instruction's start
    double start_ns = 0;        // when it leads: max(first_start_ns, the earlier phases' end)
    double end_ns = 0;          // its last instruction's end
    double duration_ns() const { return end_ns - start_ns; }
};

class PhaseWindows {
public:
    // One instruction (or one DMA transfer) of `phase`, from start_ns to end_ns.
    void add(int phase, double start_ns, double end_ns);
    // A simulated instruction, over its activity as above.
    void add(const Instruction& in, const InstrTiming& t);
    // Every phase added, in phase order.
    std::vector<PhaseWindow> windows() const;
    bool empty() const { return span_.empty(); }

private:
    std::map<int, std::pair<double, double>> span_;  // phase -> (first start, last end)
};

}  // namespace bnsim
