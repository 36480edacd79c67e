#pragma once
// A parallel loop over independent work items (chunks of a large array). Each item's result
// depends only on its index, never on which thread ran it, so the output is the same for any
// thread count.
#include <algorithm>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace bnsim::num {

// Threads to use when the caller says 0: one per hardware thread.
inline int default_threads() { return int(std::max(1u, std::thread::hardware_concurrency())); }

// Calls f(i) for every i in [0, n), items split into contiguous ranges over up to `threads`
// threads (0 = default_threads()). The first exception thrown by f is rethrown here.
template <typename F>
void parallel_for(size_t n, int threads, F&& f) {
    const size_t t = std::min<size_t>(n, size_t(threads > 0 ? threads : default_threads()));
    if (t <= 1) {
        for (size_t i = 0; i < n; ++i) f(i);
        return;
    }
    std::vector<std::thread> pool;
    std::vector<std::exception_ptr> errors(t);
    for (size_t k = 0; k < t; ++k)
        pool.emplace_back([&, k] {
            try {
                for (size_t i = n * k / t; i < n * (k + 1) / t; ++i) f(i);
            } catch (...) {
                errors[k] = std::current_exception();
            }
        });
    for (auto& th : pool) th.join();
    for (auto& e : errors)
        if (e) std::rethrow_exception(e);
}

}  // namespace bnsim::num
