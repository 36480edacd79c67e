#pragma once
// Timed actions of an event-driven module: the module's SC_METHOD runs what is due and re-arms
// one sc_event for the earliest pending action (DRAMSys's controller pattern), so nothing ticks
// while nothing is due. Ties run in insertion order, which keeps runs deterministic.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include <systemc>

namespace bnsim {

// SystemC's time resolution (1 ps): a time within this of now is now. Model times are doubles;
// sc_time rounds them to the resolution, so comparisons must allow for it.
constexpr double kTimeEpsNs = 1e-3;

// The current simulated time in ns, exactly as SystemC holds it (an integer count of its time
// resolution, 1 ps by default). Every time the models record comes from here, so records and
// observer calls are ordered exactly as SystemC ran them.
inline double now_ns() {
    static const double per_ns = std::round(1e-9 / sc_core::sc_get_time_resolution().to_seconds());
    return sc_core::sc_time_stamp().to_double() / per_ns;
}

class ActionQueue {
public:
    explicit ActionQueue(sc_core::sc_event& ev) : ev_(ev) {}

    // Runs `fn` at absolute time t_ns (>= now).
    void at(double t_ns, std::function<void()> fn) {
        heap_.push_back(Item{t_ns, seq_++, std::move(fn)});
        std::push_heap(heap_.begin(), heap_.end(), std::greater<Item>());
        rearm();
    }
    // Runs every action due at the current time; call from the owner's SC_METHOD. (A heap of its
    // own, not a std::priority_queue, so the action due is moved out rather than copied.)
    void run_due() {
        const double now = now_ns();
        while (!heap_.empty() && heap_.front().t <= now + kTimeEpsNs) {
            std::pop_heap(heap_.begin(), heap_.end(), std::greater<Item>());
            const std::function<void()> fn = std::move(heap_.back().fn);
            heap_.pop_back();
            fn();
        }
        rearm();
    }
    bool empty() const { return heap_.empty(); }

private:
    struct Item {
        double t;
        uint64_t seq;
        std::function<void()> fn;
        bool operator>(const Item& o) const { return t != o.t ? t > o.t : seq > o.seq; }
    };
    void rearm() {
        if (heap_.empty()) return;
        const double now = now_ns();
        const double d = heap_.front().t - now;
        ev_.notify(d > 0 ? sc_core::sc_time(d, sc_core::SC_NS) : sc_core::SC_ZERO_TIME);
    }
    sc_core::sc_event& ev_;
    std::vector<Item> heap_;  // a min-heap by (t, seq)
    uint64_t seq_ = 0;
};



}  // namespace bnsim
