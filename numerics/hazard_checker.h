#pragma once
// Checks an execution against the true dependencies of its trace.
//
// The true dependencies are re-derived from the regions (derive_dependencies on a copy), so a
// trace whose recorded edges were dropped or edited is still judged by what it actually reads and
// writes. Collectives add the cross-core edges a per-core derivation cannot see: a sendrecv reads
// its peer's send column, which the peer's last writer before the matching sendrecv must have
// finished, and which the peer's next writer after it must not overwrite before the read ends.
// An edge a -> b is honoured when a's finish was reported before b's start (end(a) <= start(b) in
// the runner's event order; the simulated times are reported alongside, but equal times are
// decided by the order the runner reported them, which is also the order the executor moved the
// data in). Anything else is a hazard: b read a region whose last writer had not completed (RAW),
// or wrote a region with unfinished readers (WAR) or writers (WAW).
#include <string>
#include <vector>

#include "trace/execution_observer.h"
#include "trace/trace.h"

namespace bnsim::num {

struct Hazard {
    uint32_t instr = 0;  // the instruction that started too early
    uint32_t other = 0;  // the one it raced with
    std::string kind;    // RAW | WAR | WAW | not-executed
    Region region;       // the overlap of the two accesses
    double start_ns = 0, other_end_ns = 0;
    std::string text;    // one line naming both instructions and the region
};

class HazardChecker : public ExecutionObserverIF {
public:
    explicit HazardChecker(const Trace& as_run);

    void on_start(const Instruction& ins, double t_ns) override;
    void on_finish(const Instruction& ins, double t_ns) override;

    // All violations, in order of the later instruction's id.
    std::vector<Hazard> check() const;
    uint64_t edges_checked() const { return edges_; }

private:
    Trace truth_;
    std::vector<std::vector<uint32_t>> cross_;  // extra true deps per instruction (collectives)
    std::vector<double> start_, end_;
    std::vector<uint64_t> start_seq_, end_seq_;  // event order; 0 = never
    uint64_t seq_ = 0;
    mutable uint64_t edges_ = 0;
};

std::string describe_instruction(const Instruction& ins);

}  // namespace bnsim::num
