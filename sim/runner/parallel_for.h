#pragma once
// Calls f(0..n-1) on `jobs` threads of this process: for work that is a pure function of its
// inputs (tracing and estimating configs). Simulations go through sim/runner/simulation_runner.h
// instead, one child process each, and never from inside these threads.
#include <cstddef>
#include <functional>

namespace bnsim {

// Every f(i) runs, whatever another throws. Then, if any threw, the exception of the lowest such
// i is rethrown here: the error a loop in index order meets first (the first grid value a config
// rejects, say), whichever thread met it and when.
void parallel_for(size_t n, int jobs, const std::function<void(size_t)>& f);

}  // namespace bnsim
