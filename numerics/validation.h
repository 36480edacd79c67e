#pragma once
// What validating a kernel on real data produces, whatever the kernel: its outputs checked
// against a reference, the hazards of the execution, and how long each step took.
#include <chrono>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "numerics/comparison.h"
#include "numerics/hazard_checker.h"
#include "trace/execution_observer.h"
#include "trace/trace.h"

namespace bnsim::num {

// Runs every instruction of the trace, calling the observer's on_start/on_finish (the timing
// simulation, or one of numerics/runners.h).
using Runner = std::function<void(const Trace&, ExecutionObserverIF&)>;

struct ValidationResult {
    std::vector<OutputCheck> outputs;
    std::vector<Hazard> hazards;
    uint64_t dependency_edges_checked = 0;
    uint64_t instructions = 0;
    bool pass = false;
    std::vector<std::pair<std::string, double>> phase_seconds;  // wall time of each step

    // Passes when there are no hazards and every output (kernel and oracle) is within tolerance.
    bool outputs_pass() const;
};

// Records the wall time of consecutive steps into a result's phase_seconds.
class StepTimer {
public:
    explicit StepTimer(ValidationResult& r) : r_(r), t0_(std::chrono::steady_clock::now()) {}
    void lap(const char* what);

private:
    ValidationResult& r_;
    std::chrono::steady_clock::time_point t0_;
};

}  // namespace bnsim::num
