#include "numerics/validation.h"

namespace bnsim::num {

bool ValidationResult::outputs_pass() const {
    bool ok = hazards.empty();
    for (const auto& o : outputs) ok = ok && o.kernel_pass && o.oracle_pass;
    return ok;
}

void StepTimer::lap(const char* what) {
    const auto t1 = std::chrono::steady_clock::now();
    r_.phase_seconds.emplace_back(what, std::chrono::duration<double>(t1 - t0_).count());
    t0_ = t1;
}

}  // namespace bnsim::num
