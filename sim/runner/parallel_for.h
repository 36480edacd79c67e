#pragma once
// Calls f(0..n-1) on `jobs` threads of this process: for work that is a pure function of its
// inputs (tracing and estimating configs). Simulations go through sim/runner/simulation_runner.h
// instead, one child process each, and never from inside these threads.
#include <cstddef>
#include <functional>

namespace bnsim {

void parallel_for(size_t n, int jobs, const std::function<void(size_t)>& f);

}  // namespace bnsim
