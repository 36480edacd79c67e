#include "sim/runner/parallel_for.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace bnsim {

void parallel_for(size_t n, int jobs, const std::function<void(size_t)>& f) {
    std::atomic<size_t> next{0};
    std::mutex failure_mu;
    size_t failed_at = n;  // the lowest index whose call threw so far
    std::exception_ptr failure;
    auto worker = [&]() {
        for (size_t i; (i = next++) < n;) {
            try {
                f(i);
            } catch (...) {
                std::lock_guard<std::mutex> lock(failure_mu);
                if (i < failed_at) {
                    failed_at = i;
                    failure = std::current_exception();
                }
            }
        }
    };
    const int threads = std::max(1, std::min<int>(jobs, int(n)));
    std::vector<std::thread> pool;
    for (int j = 1; j < threads; ++j) pool.emplace_back(worker);
    worker();
    for (auto& t : pool) t.join();
    if (failure) std::rethrow_exception(failure);
}

}  // namespace bnsim
