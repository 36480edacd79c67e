#pragma once
// A parallel loop over independent work items (chunks of a large array). Each item's result
// depends only on its index, never on which thread ran it, so the output is the same for any
// thread count.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace bnsim::num {

// Threads to use when the caller says 0: one per hardware thread.
inline int default_threads() { return int(std::max(1u, std::thread::hardware_concurrency())); }

// Calls f(i) for every i in [0, n) on up to `threads` threads (0 = default_threads()), the
// caller's among them. Each thread claims the next item left, so a thread the scheduler holds
// back (on a loaded machine) leaves its share to the others. The first exception thrown by f is
// rethrown here.
template <typename F>
void parallel_for(size_t n, int threads, F&& f) {
    const size_t t = std::min<size_t>(n, size_t(threads > 0 ? threads : default_threads()));
    if (t <= 1) {
        for (size_t i = 0; i < n; ++i) f(i);
        return;
    }
    std::atomic<size_t> next{0};
    std::vector<std::exception_ptr> errors(t);
    auto work = [&](size_t k) {
        try {
            for (size_t i = next++; i < n; i = next++) f(i);
        } catch (...) {
            errors[k] = std::current_exception();
        }
    };
    std::vector<std::thread> pool;
    for (size_t k = 1; k < t; ++k) pool.emplace_back(work, k);
    work(0);
    for (auto& th : pool) th.join();
    for (auto& e : errors)
        if (e) std::rethrow_exception(e);
}

}  // namespace bnsim::num
