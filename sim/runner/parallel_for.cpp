#include "sim/runner/parallel_for.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace bnsim {

void parallel_for(size_t n, int jobs, const std::function<void(size_t)>& f) {
    std::atomic<size_t> next{0};
    auto worker = [&]() {
        for (size_t i; (i = next++) < n;) f(i);
    };
    const int threads = std::max(1, std::min<int>(jobs, int(n)));
    std::vector<std::thread> pool;
    for (int j = 1; j < threads; ++j) pool.emplace_back(worker);
    worker();
    for (auto& t : pool) t.join();
}

}  // namespace bnsim
