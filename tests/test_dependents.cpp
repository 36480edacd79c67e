// Dependents: the reverse of a trace's dependency edges, shared by the list scheduler and the
// scoreboard.
#include <catch2/catch.hpp>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "tests/test_util.h"
#include "trace/dependents.h"

using namespace bnsim;

namespace {

Trace chain_trace(const std::vector<std::vector<uint32_t>>& deps, const std::vector<uint8_t>& cores) {
    Trace t;
    t.num_cores = 2;
    for (size_t i = 0; i < deps.size(); ++i) {
        Instruction in;
        in.core = cores[i];
        t.append(in);
    }
    for (size_t i = 0; i < deps.size(); ++i) t.instructions()[i].deps = deps[i];
    return t;
}

std::vector<uint32_t> dependents_of(const Dependents& d, uint32_t id) { return {d.begin(id), d.end(id)}; }

}  // namespace

TEST_CASE("dependents: each instruction's waiters in program order, and how many it waits for") {
    // 0 <- 1, 0 <- 2, 1 <- 3, 2 <- 3, 0 <- 3; core 1: 4 <- 5
    const Trace t = chain_trace({{}, {0}, {0}, {2, 1, 0}, {}, {4}}, {0, 0, 0, 0, 1, 1});
    const Dependents d(t);
    CHECK(dependents_of(d, 0) == std::vector<uint32_t>{1, 2, 3});
    CHECK(dependents_of(d, 1) == std::vector<uint32_t>{3});
    CHECK(dependents_of(d, 2) == std::vector<uint32_t>{3});
    CHECK(dependents_of(d, 3).empty());
    CHECK(dependents_of(d, 4) == std::vector<uint32_t>{5});
    CHECK(dependents_of(d, 5).empty());
    CHECK(d.dep_count(0) == 0);
    CHECK(d.dep_count(3) == 3);
    CHECK(d.dep_count(5) == 1);
}

TEST_CASE("dependents: the generated kernel's reverse edges are exactly its deps turned around") {
    RunConfig cfg = test::default_config({{"lnc", "2"}});
    const GeneratedKernel k = cfg.generate();
    const Dependents d(k.trace);
    size_t forward = 0, reverse = 0;
    for (const auto& in : k.trace.instructions()) {
        forward += in.deps.size();
        CHECK(d.dep_count(in.id) == in.deps.size());
        for (uint32_t w : dependents_of(d, in.id)) {
            const auto& wd = k.trace.instructions()[w].deps;
            CHECK(std::count(wd.begin(), wd.end(), in.id) == 1);
            ++reverse;
        }
    }
    CHECK(forward > 0);
    CHECK(reverse == forward);
}

TEST_CASE("dependents: an unknown id or an edge between cores is an internal error") {
    CHECK_THROWS_AS(Dependents(chain_trace({{}, {7}}, {0, 0})), std::logic_error);
    CHECK_THROWS_AS(Dependents(chain_trace({{}, {0}}, {0, 1})), std::logic_error);
}
