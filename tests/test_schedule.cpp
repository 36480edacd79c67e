// The scheduling pass: program order, and the list scheduler's reordering within dependencies.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
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

TEST_CASE("estimate_latency_ns with stop_above: the estimate when it is at or under it, +infinity when above") {
    const RunConfig cfg = test::default_config({});
    const GeneratedKernel k = cfg.generate();
    const Dependents deps(k.trace);
    const double est = estimate_latency_ns(cfg.hw, k.trace, deps);
    const double inf = std::numeric_limits<double>::infinity();
    CHECK(estimate_latency_ns(cfg.hw, k.trace, deps, est) == est);  // at it: not above
    CHECK(estimate_latency_ns(cfg.hw, k.trace, deps, est + 1) == est);
    CHECK(estimate_latency_ns(cfg.hw, k.trace, deps, std::nextafter(est, 0.0)) == inf);
    CHECK(estimate_latency_ns(cfg.hw, k.trace, deps, est / 2) == inf);
    CHECK(estimate_latency_ns(cfg.hw, k.trace, deps, 0) == inf);
}

TEST_CASE("estimate_lower_bound_ns: the busiest stream's summed occupancy plus the launch, never above the estimate") {
    // With no ACT table switch an engine's occupancy is its instructions' own costs, so the
    // bound is exactly the busiest (core, engine) stream's summed est_occupy from the list
    // scheduler's timeline (summed there in stream order, here in program order: equal to
    // rounding), less its 1e-9 rounding margin.
    for (const char* layer : {"/configs/default.yaml", "/configs/layers/bn3d_relu_lnc2.yaml"}) {
        for (const char* f_tile : {"memory.f_tile=256", "memory.f_tile=4096"}) {
            INFO(layer << " " << f_tile);
            const std::string path = std::string(BNSIM_SOURCE_DIR) + layer;
            RunConfig cfg = load_run_config(path, parse_overrides({f_tile, "memory.interleave=2"}));
            const GeneratedKernel k = cfg.generate();
            const Dependents deps(k.trace);
            const std::vector<CoreStreams> program_order = schedule_program_order(k.trace).cores;
            for (const char* set : {"hardware.act.table_switch_ns=0", "hardware.act.table_switch_ns=1283",
                                    "hardware.dma.trigger_cycles=352", "hardware.engines.act.clock_ghz=0.7"}) {
                INFO(set);
                const HwConfig hw = load_run_config(path, parse_overrides({f_tile, "memory.interleave=2", set})).hw;
                const double lb = estimate_lower_bound_ns(hw, k.trace, program_order);
                const double est = estimate_latency_ns(hw, k.trace, deps);
                CHECK(lb <= est);
                const Schedule s = schedule_list(k.trace, deps, CostModel(hw), ScheduleDetail::timeline);
                double busiest = 0;
                for (const auto& core : s.cores)
                    for (const auto& stream : core) {
                        double sum = 0;
                        for (uint32_t id : stream) sum += s.est_occupy[id];
                        busiest = std::max(busiest, sum);
                    }
                CHECK(busiest > 0);
                if (hw.act.table_switch_ns == 0)
                    CHECK(lb - hw.launch.fixed_ns == Approx(busiest).epsilon(1e-8));
                else
                    CHECK(lb - hw.launch.fixed_ns <= busiest);
                // Stopping early still bounds, and is above where it stopped if the whole is.
                const double stop = (lb + hw.launch.fixed_ns) / 2;
                const double early = estimate_lower_bound_ns(hw, k.trace, program_order, stop);
                CHECK(early <= lb);
                CHECK(early > stop);
            }
        }
    }
}
