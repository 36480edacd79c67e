#pragma once
// The order in which the DMA scheduler (models/dma_scheduler.h) makes its engines' decisions:
// earliest time first; among engines due at one instant, engine order, round by round (an engine
// whose decision leaves it due at that same instant again goes after every engine already due
// then, as a scan of the engines in order, repeated while any is due, would take them).
//
// A winner tree over the engines: the next engine is at the root, and an engine's new time
// replays only its path (log2 engines comparisons). A scan of every engine per decision costs
// O(engines) when engines are out of step, as they are with small descriptors.
#include <cstdint>
#include <limits>
#include <vector>

namespace bnsim {

class DecisionOrder {
public:
    using Ticks = uint64_t;
    static constexpr Ticks kNever = std::numeric_limits<Ticks>::max();

    // A new engine (the next index), not due.
    void add() {
        ++engines_;
        size_t leaves = 1;
        while (leaves < engines_) leaves *= 2;
        std::vector<Ticks> times(leaves, kNever);
        std::vector<uint64_t> orders(leaves);
        for (size_t e = 0; e < leaves; ++e) {
            if (e < leaves_) times[e] = time_[leaves_ + e], orders[e] = order_[leaves_ + e];
            else orders[e] = e;  // round 0
        }
        leaves_ = leaves;
        time_.assign(2 * leaves, kNever);
        order_.assign(2 * leaves, 0);
        for (size_t e = 0; e < leaves; ++e) time_[leaves + e] = times[e], order_[leaves + e] = orders[e];
        for (size_t k = leaves - 1; k >= 1; --k) {
            const size_t w = goes_first(2 * k + 1, 2 * k) ? 2 * k + 1 : 2 * k;
            time_[k] = time_[w];
            order_[k] = order_[w];
        }
    }
    size_t size() const { return engines_; }
    // The engine to decide next (any engine, not due, if none is), and its time.
    size_t first() const { return size_t(order_[1] & kIndexMask); }
    Ticks first_time() const { return engines_ ? time_[1] : kNever; }
    Ticks time(size_t e) const { return time_[leaves_ + e]; }
    // Engine e's place among engines due at time(e): round << 32 | e.
    uint64_t key(size_t e) const { return order_[leaves_ + e]; }
    // Engine e is due at t in round `round` (as another engine due at t in that round would be).
    void place(size_t e, Ticks t, uint64_t round) { replay(e, t, round << 32 | e); }

    // Engine e's next decision moved to t (a descriptor reached an idle engine).
    void set(size_t e, Ticks t) { replay(e, t, e); }
    // Engine e decided at time(e); its next decision is at `next`, a further round if the same.
    void decided(size_t e, Ticks next) {
        replay(e, next, next == time(e) ? order_[leaves_ + e] + (uint64_t(1) << 32) : e);
    }

    // Decides first() and the engines after it due at the same instant in the same round, in
    // engine order (each is next once the one before has decided: no key falls between theirs),
    // `decide(e)` returning e's next time; then replays their paths together. Engines in step
    // (the same descriptors from the same instant) so cost a node per decision, not a path.
    template <class Decide>
    void decide_run(Decide&& decide) {
        const size_t lo = first();
        const Ticks t = time_[leaves_ + lo];
        const uint64_t round = order_[leaves_ + lo] >> 32;
        size_t e = lo;
        for (;;) {
            const Ticks next = decide(e);
            const size_t k = leaves_ + e;
            if (e + 1 >= engines_ || time_[k + 1] != t || order_[k + 1] >> 32 != round) {
                if (e == lo) {  // a run of one, as out-of-step engines are: its path alone
                    replay(e, next, next == t ? order_[k] + (uint64_t(1) << 32) : e);
                    return;
                }
                stage(e, next);
                break;
            }
            stage(e, next);
            ++e;
        }
        replay_range(lo, e);
    }

private:
    // A node's key is (time, round << 32 | engine): earlier time, then earlier round, then the
    // lower engine goes first. Nodes hold their subtree's first key, so a replay reads siblings only.
    static constexpr uint64_t kIndexMask = 0xffffffffu;
    bool goes_first(size_t a, size_t b) const {
        return time_[a] != time_[b] ? time_[a] < time_[b] : order_[a] < order_[b];
    }
    void replay(size_t e, Ticks t, uint64_t o) {
        size_t k = leaves_ + e;
        time_[k] = t;
        order_[k] = o;
        for (; k > 1; k /= 2) {
            const size_t s = k ^ 1;
            if (time_[s] < t || (time_[s] == t && order_[s] < o)) {
                t = time_[s];
                o = order_[s];
            }
            time_[k / 2] = t;
            order_[k / 2] = o;
        }
    }
    // Leaf e's new time after deciding at its current one (not yet replayed).
    void stage(size_t e, Ticks next) {
        const size_t k = leaves_ + e;
        order_[k] = next == time_[k] ? order_[k] + (uint64_t(1) << 32) : e;
        time_[k] = next;
    }
    // Recomputes every node above leaves lo..hi, level by level.
    void replay_range(size_t lo, size_t hi) {
        for (size_t a = (leaves_ + lo) / 2, b = (leaves_ + hi) / 2; a >= 1; a /= 2, b /= 2)
            for (size_t k = a; k <= b; ++k) {
                const size_t w = goes_first(2 * k + 1, 2 * k) ? 2 * k + 1 : 2 * k;
                time_[k] = time_[w];
                order_[k] = order_[w];
            }
    }

    size_t engines_ = 0, leaves_ = 0;
    std::vector<Ticks> time_;      // [node]: the first key's time; leaves (engines) at [leaves_ + e]
    std::vector<uint64_t> order_;  // [node]: the first key's round << 32 | engine
};

}  // namespace bnsim
