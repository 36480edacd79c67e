// The DMA scheduler's decision order (a winner tree) against the scan it replaces: find the
// earliest time, decide every engine due then in engine order, repeat. Engines' next times come
// from a seeded generator with many ties and some decisions that leave an engine due at the same
// instant again, so rounds at one instant are exercised.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <utility>
#include <vector>

#include "models/decision_order.h"

using namespace bnsim;

namespace {

using Ticks = DecisionOrder::Ticks;

// The next time of `engine` after deciding at t: the same instant (a zero-length decision), a
// tick later, one of a few common steps, or never.
Ticks step(std::mt19937_64& rng, Ticks t) {
    switch (rng() % 8) {
    case 0: return t;
    case 1: return t + 1;
    case 2: return DecisionOrder::kNever;
    default: return t + 100 * (1 + rng() % 3);
    }
}

// The decisions of the scan the tree replaces, as (engine, time): find the earliest next time,
// decide every engine due then in engine order (next_of(t) gives its new next time), repeat
// until the horizon.
template <class NextOf>
std::vector<std::pair<size_t, Ticks>> scan_order(std::vector<Ticks> next, Ticks horizon, NextOf&& next_of) {
    std::vector<std::pair<size_t, Ticks>> order;
    for (;;) {
        const Ticks t = *std::min_element(next.begin(), next.end());
        if (t >= horizon) return order;
        for (size_t e = 0; e < next.size(); ++e)
            if (next[e] == t) {
                order.emplace_back(e, t);
                next[e] = next_of(t);
            }
    }
}

}  // namespace

TEST_CASE("DMA decision order: the winner tree decides as the in-order scan does") {
    for (size_t engines : {1u, 2u, 3u, 5u, 16u, 32u}) {
        for (uint64_t seed = 1; seed <= 20; ++seed) {
            INFO("engines " << engines << " seed " << seed);
            std::mt19937_64 rng_scan(seed), rng_tree(seed);
            // Start times, alike for both.
            std::vector<Ticks> next(engines);
            DecisionOrder order;
            for (size_t e = 0; e < engines; ++e) order.add();
            std::mt19937_64 start(seed * 7919);
            for (size_t e = 0; e < engines; ++e) {
                next[e] = 100 * (start() % 4);
                order.set(e, next[e]);
            }
            const Ticks horizon = 5000;

            const auto by_scan = scan_order(next, horizon, [&](Ticks t) { return step(rng_scan, t); });
            std::vector<std::pair<size_t, Ticks>> by_tree;
            for (;;) {
                const Ticks t = order.first_time();
                if (t >= horizon) break;
                const size_t e = order.first();
                REQUIRE(order.time(e) == t);
                by_tree.emplace_back(e, t);
                order.decided(e, step(rng_tree, t));
            }
            REQUIRE(by_tree.size() == by_scan.size());
            CHECK(by_tree == by_scan);
        }
    }
}

TEST_CASE("DMA decision order: an engine made due later by a push takes its place") {
    DecisionOrder order;
    for (int e = 0; e < 3; ++e) order.add();
    CHECK(order.first_time() == DecisionOrder::kNever);
    order.set(2, 50);
    order.set(1, 70);
    CHECK(order.first() == 2);
    order.decided(2, 90);
    CHECK(order.first() == 1);
    order.set(0, 70);  // ties with engine 1: the lower engine first
    CHECK(order.first() == 0);
    CHECK(order.first_time() == 70);
}

TEST_CASE("DMA decision order: deciding engines in step as a run keeps the scan's order") {
    for (size_t engines : {1u, 3u, 16u, 32u}) {
        for (uint64_t seed = 1; seed <= 20; ++seed) {
            INFO("engines " << engines << " seed " << seed);
            std::mt19937_64 rng_scan(seed), rng_tree(seed);
            std::vector<Ticks> next(engines, 0);  // all in step at 0
            DecisionOrder order;
            for (size_t e = 0; e < engines; ++e) order.add();
            for (size_t e = 0; e < engines; ++e) order.set(e, 0);
            // Engines step alike most of the time (a common step), so runs form.
            auto lockstep = [](std::mt19937_64& rng, Ticks t) -> Ticks {
                const uint64_t r = rng() % 16;
                if (r == 0) return t;
                if (r == 1) return t + 7;
                return t + 100;
            };
            const Ticks horizon = 20000;
            const auto by_scan = scan_order(next, horizon, [&](Ticks t) { return lockstep(rng_scan, t); });
            std::vector<std::pair<size_t, Ticks>> by_tree;
            while (order.first_time() < horizon)
                order.decide_run([&](size_t e) {
                    const Ticks t = order.time(e);
                    by_tree.emplace_back(e, t);
                    return lockstep(rng_tree, t);
                });
            REQUIRE(by_tree.size() == by_scan.size());
            CHECK(by_tree == by_scan);
        }
    }
}
