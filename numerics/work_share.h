#pragma once
// Shares the items of many small loops (an instruction's rows, a few hundred microseconds of work)
// with helper threads that live as long as the WorkShare, so no thread is started per loop.
//
// The caller works through the items itself, claiming each from a shared counter; a helper that
// wakes in time claims some too. The caller waits only for items a helper has claimed and not
// finished: a helper the scheduler has not run yet (on a loaded machine) costs nothing, its
// items are simply done by the caller. Each item's result depends only on its index, so the
// output is the same whoever runs it.
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace bnsim::num {

class WorkShare {
public:
    // helpers: threads besides the caller's (0: none, every loop runs on the caller).
    explicit WorkShare(int helpers);
    ~WorkShare();
    WorkShare(const WorkShare&) = delete;
    WorkShare& operator=(const WorkShare&) = delete;

    // Calls f(i) for every i in [0, n) and returns when all are done. The first exception thrown
    // by f is rethrown here (the other items still run).
    void run(size_t n, const std::function<void(size_t)>& f);
    int helpers() const { return int(threads_.size()); }

private:
    // The claim word: the loop's generation in the high 32 bits, the next item in the low 32,
    // so a helper that wakes late can never claim an item of a later loop.
    std::atomic<uint64_t> claim_{0};
    std::atomic<uint32_t> done_{0};
    std::mutex m_;
    std::condition_variable wake_;
    uint32_t gen_ = 0;
    size_t n_ = 0;
    const std::function<void(size_t)>* f_ = nullptr;
    bool stop_ = false;
    std::exception_ptr error_;
    std::vector<std::thread> threads_;

    // Claims and runs items of loop `gen` until none is left.
    void work(uint32_t gen, size_t n, const std::function<void(size_t)>& f);
    void helper();
};

}  // namespace bnsim::num
