// sim/runner/parallel_for.h: every item runs, and the error reported is the lowest item's, not
// the one that happened to throw first.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "sim/runner/parallel_for.h"

using namespace bnsim;

TEST_CASE("parallel_for: every item runs, and the lowest item's exception is rethrown whichever threw first") {
    for (int jobs : {1, 2, 4}) {
        INFO(jobs << " jobs");
        std::vector<std::atomic<int>> ran(12);
        std::string caught;
        try {
            parallel_for(ran.size(), jobs, [&](size_t i) {
                ++ran[i];
                // Item 1 throws late (after item 7 has thrown, with more than one thread).
                if (i == 1) {
                    std::this_thread::sleep_for(std::chrono::milliseconds(30));
                    throw std::runtime_error("item 1");
                }
                if (i == 7) throw std::runtime_error("item 7");
            });
        } catch (const std::runtime_error& e) {
            caught = e.what();
        }
        CHECK(caught == "item 1");
        bool once = true;
        for (auto& r : ran) once = once && r.load() == 1;
        CHECK(once);  // the items after a failing one still ran
    }
    std::atomic<int> sum{0};
    parallel_for(100, 3, [&](size_t i) { sum += int(i); });
    CHECK(sum.load() == 4950);
}
