#include "numerics/work_share.h"

namespace bnsim::num {

WorkShare::WorkShare(int helpers) {
    for (int i = 0; i < helpers; ++i) threads_.emplace_back([this] { helper(); });
}

WorkShare::~WorkShare() {
    {
        std::lock_guard<std::mutex> l(m_);
        stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : threads_) t.join();
}

void WorkShare::run(size_t n, const std::function<void(size_t)>& f) {
    if (threads_.empty() || n <= 1) {
        for (size_t i = 0; i < n; ++i) f(i);
        return;
    }
    uint32_t gen;
    {
        std::lock_guard<std::mutex> l(m_);
        gen = ++gen_;
        n_ = n;
        f_ = &f;
        error_ = nullptr;
        done_.store(0);
        claim_.store(uint64_t(gen) << 32);
    }
    wake_.notify_all();
    work(gen, n, f);
    // Only items a helper claimed can still be running: each is a short piece of work.
    while (done_.load(std::memory_order_acquire) < n) std::this_thread::yield();
    std::exception_ptr e;
    {
        std::lock_guard<std::mutex> l(m_);
        e = error_;
        error_ = nullptr;
    }
    if (e) std::rethrow_exception(e);
}

void WorkShare::work(uint32_t gen, size_t n, const std::function<void(size_t)>& f) {
    for (;;) {
        uint64_t c = claim_.load();
        do {
            if (uint32_t(c >> 32) != gen || (c & 0xffffffffu) >= n) return;
        } while (!claim_.compare_exchange_weak(c, c + 1));
        try {
            f(size_t(c & 0xffffffffu));
        } catch (...) {
            std::lock_guard<std::mutex> l(m_);
            if (!error_) error_ = std::current_exception();
        }
        done_.fetch_add(1, std::memory_order_release);
    }
}

void WorkShare::helper() {
    uint32_t seen = 0;
    for (;;) {
        uint32_t gen;
        size_t n;
        const std::function<void(size_t)>* f;
        {
            std::unique_lock<std::mutex> l(m_);
            wake_.wait(l, [&] { return stop_ || gen_ != seen; });
            if (stop_) return;
            seen = gen = gen_;
            n = n_;
            f = f_;
        }
        // A claim succeeds only while loop `gen` has items left, so f is still alive then.
        work(gen, n, *f);
    }
}

}  // namespace bnsim::num
