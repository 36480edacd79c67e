// The scheduling pass: program order, and the list scheduler's reordering within dependencies.
#include <catch2/catch.hpp>

#include <cstring>
#include <map>

#include "sim/config/run_config.h"
#include "sim/schedule/schedule.h"
#include "sim/simulate/simulate.h"
#include "tests/test_util.h"

using namespace bnsim;

namespace {

// Position of each instruction in its engine's stream.
std::map<uint32_t, size_t> positions(const Schedule& s) {
    std::map<uint32_t, size_t> pos;
    for (const auto& core : s.cores)
        for (const auto& stream : core)
            for (size_t i = 0; i < stream.size(); ++i) pos[stream[i]] = i;
    return pos;
}

uint32_t id_of(const Trace& t, const char* what, int unit) {
    for (const auto& in : t.instructions())
        if (in.tag.phase == 1 && in.tag.unit == unit && std::strcmp(in.tag.what, what) == 0) return in.id;
    FAIL("instruction not found");
    return 0;
}

void check_valid(const Trace& t, const Schedule& s) {
    auto pos = positions(s);
    REQUIRE(pos.size() == t.size());
    for (const auto& in : t.instructions())
        for (uint32_t d : in.deps) {
            const Instruction& di = t.instructions()[d];
            if (di.engine == in.engine && di.core == in.core) CHECK(pos[d] < pos[in.id]);
        }
}

}  // namespace

TEST_CASE("schedule: program_order keeps each engine's instructions in source order") {
    RunConfig cfg = test::default_config();
    GeneratedKernel k = cfg.generate();
    Schedule s = schedule_program_order(k.trace);
    REQUIRE(s.cores.size() == 1);
    size_t n = 0;
    for (const auto& stream : s.cores[0]) {
        for (size_t i = 1; i < stream.size(); ++i) CHECK(stream[i - 1] < stream[i]);
        n += stream.size();
    }
    CHECK(n == k.trace.size());
    check_valid(k.trace, s);
}

TEST_CASE("schedule: the list scheduler moves tile i+1's loads ahead of tile i's direct_x store") {
    RunConfig cfg = test::default_config({{"memory", "{f_tile: 4096, interleave: 2}"}});
    GeneratedKernel k = cfg.generate();
    CostModel cm(cfg.hw);
    Schedule list = schedule_list(k.trace, cm);
    Schedule prog = schedule_program_order(k.trace);
    CHECK_FALSE(list.stuck);
    check_valid(k.trace, list);
    auto lp = positions(list), pp = positions(prog);
    for (int i = 0; i + 1 < 30; ++i) {  // units 30 and 31 are resident: no store
        const uint32_t store = id_of(k.trace, "store direct_x", i);
        const uint32_t load = id_of(k.trace, "load dy", i + 1);
        CHECK(pp[store] < pp[load]);  // source order: the store first
        CHECK(lp[load] < lp[store]);  // list: the next tile's load first
    }
    // its estimates respect the dependencies
    for (const auto& in : k.trace.instructions())
        for (uint32_t d : in.deps) CHECK(list.est_start[in.id] >= list.est_end[d] - 1e-6);
}

TEST_CASE("schedule: a dependency cycle leaves the rest in source order and flags it") {
    Trace t;
    for (int i = 0; i < 3; ++i) {
        Instruction in;
        in.engine = i == 1 ? Engine::Dve : Engine::Act;
        in.opcode = i == 1 ? Opcode::TensorTensor : Opcode::Activation;
        in.partitions = 128;
        in.free_elems = 64;
        t.append(in);
    }
    t.instructions()[0].deps = {1};
    t.instructions()[1].deps = {0};
    RunConfig cfg = test::default_config();
    CostModel cm(cfg.hw);
    Schedule s = schedule_list(t, cm);
    CHECK(s.stuck);
    CHECK(s.cores[0][size_t(Engine::Act)] == std::vector<uint32_t>{2, 0});
    CHECK(s.cores[0][size_t(Engine::Dve)] == std::vector<uint32_t>{1});
}

TEST_CASE("schedule: a simulation's streams-only list schedule has the timeline's streams and no timeline") {
    for (const char* lnc : {"1", "2"}) {
        RunConfig cfg = test::default_config({{"lnc", lnc}});
        GeneratedKernel k = cfg.generate();
        CostModel cm(cfg.hw);
        const Schedule full = schedule_list(k.trace, cm, ScheduleDetail::timeline);
        const Schedule streams = make_schedule(k.trace, Dependents(k.trace), cm, SchedulePolicy::list);
        CHECK(streams.cores == full.cores);
        CHECK(full.est_end.size() == k.trace.size());
        CHECK(streams.est_start.empty());
        CHECK(streams.est_end.empty());
        CHECK(streams.est_head.empty());
        CHECK(streams.est_occupy.empty());
        CHECK(streams.est_waited_on.empty());
        CHECK(streams.est_dma.empty());
    }
}

TEST_CASE("estimate_latency_ns equals the estimate's latency, for any hardware, from dependents built once") {
    // The decision commands rank by the short form; it must be the same figure as the report's.
    for (const char* layer : {"/configs/default.yaml", "/configs/layers/bn3d_relu_lnc2.yaml"}) {
        const RunConfig cfg = load_run_config(std::string(BNSIM_SOURCE_DIR) + layer, {});
        const GeneratedKernel k = cfg.generate();
        const Dependents deps(k.trace);
        for (const char* set : {"hardware.dma.trigger_cycles=64", "hardware.launch.fixed_ns=12000",
                                "hardware.hbm.bandwidth_gbps=300"}) {
            INFO(layer << " " << set);
            const HwConfig hw = load_run_config(std::string(BNSIM_SOURCE_DIR) + layer, parse_overrides({set})).hw;
            CHECK(estimate_latency_ns(hw, k.trace, deps) == estimate(hw, k.trace).latency_ns);  // bit for bit
        }
    }
}
