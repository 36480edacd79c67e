// Costs that depend on more than the instruction itself (issue 10): the ACT function table an
// engine has loaded, and the cross-engine semaphore latency between a producer and its consumer.
#include <catch2/catch.hpp>

#include "models/cost_model.h"
#include "sim/config/run_config.h"
#include "sim/schedule/schedule.h"
#include "sim/simulate/simulate.h"

using namespace bnsim;

namespace {

RunConfig seed_config(const Overrides& o = {}) {
    return load_run_config(std::string(BNSIM_SOURCE_DIR) + "/configs/default.yaml", o);
}

Instruction activation(ActFunc f) {
    Instruction i;
    i.engine = Engine::Act;
    i.opcode = Opcode::Activation;
    i.act_func = f;
    i.srcs = {sbuf_operand(0, 0, 128, 0, 400, DType::fp32)};
    i.dsts = {sbuf_operand(0, 0, 128, 400, 400, DType::fp32)};
    i.partitions = 128;
    i.free_elems = 100;
    return i;
}

}  // namespace

TEST_CASE("ACT table: an activation whose function differs from the loaded table's pays the switch") {
    HwConfig hw;
    hw.engines[int(Engine::Act)] = {1.0, 64};  // 1 GHz: cycles = ns
    CostEntry row;
    row.engine = Engine::Act;
    row.opcode = Opcode::Activation;
    row.cycles_per_elem = 1.0;
    row.source = "test";
    hw.costs = {row};
    hw.act.table_switch_ns = 1000;
    const CostModel cm(hw);
    CostModel::EngineState s;
    CHECK(cm.engine_ns(activation(ActFunc::rsqrt), s) == Approx(100));  // the first: loaded before the kernel
    CHECK(cm.engine_ns(activation(ActFunc::copy), s) == Approx(1100));  // rsqrt -> copy
    CHECK(cm.engine_ns(activation(ActFunc::copy), s) == Approx(100));   // same table
    CHECK(cm.engine_ns(activation(ActFunc::rsqrt), s) == Approx(1100));  // copy -> rsqrt
    CHECK(cm.engine_ns(activation(ActFunc::rsqrt)) == Approx(100));     // without state: no switch
}

TEST_CASE("ACT table: the seed kernel's ACT busy time is its instructions plus one switch per change of function") {
    RunConfig cfg = seed_config();
    GeneratedKernel k = cfg.generate();
    const CostModel cm(cfg.hw);
    const Schedule s = schedule_list(k.trace, cm);
    int changes = 0;
    double own = 0;
    const Instruction* prev = nullptr;
    for (uint32_t id : s.cores[0][size_t(Engine::Act)]) {
        const Instruction& in = k.trace.instructions()[id];
        own += cm.engine_ns(in);
        if (in.opcode != Opcode::Activation) continue;
        if (prev && prev->act_func != in.act_func) ++changes;
        prev = &in;
    }
    CHECK(changes >= 1);  // rsqrt -> copy
    const SimResult r = simulate(cfg.hw, k.trace, SimOptions{});
    CHECK(r.units.cores.at(0).engines[size_t(Engine::Act)].busy_ns == Approx(own + changes * 1283.0).epsilon(1e-9));
}

TEST_CASE("semaphore: a consumer on another engine starts no sooner than its producer's end plus the latency") {
    RunConfig cfg = seed_config();
    GeneratedKernel k = cfg.generate();
    const CostModel cm(cfg.hw);
    const double lat = cfg.hw.semaphore.latency_ns;
    REQUIRE(lat == 104);
    const Schedule s = schedule_list(k.trace, cm);
    const SimResult r = simulate(cfg.hw, k.trace, SimOptions{});
    int binds = 0, cross = 0;
    for (const auto& in : k.trace.instructions())
        for (uint32_t d : in.deps) {
            const Instruction& p = k.trace.instructions()[d];
            const double expect = cm.handoff_ns(p, in);
            const double same = p.is_dma() ? 0.0 : -cm.result_latency_ns(p);
            CHECK(expect == (p.is_dma() ? 0.0 : p.engine == in.engine ? same : lat));
            if (p.is_dma() || p.engine == in.engine) continue;
            ++cross;
            CHECK(s.est_start[in.id] >= s.est_end[d] + lat - 1e-6);
            CHECK(r.timing[in.id].ready_ns >= r.timing[d].end_ns + lat - 1e-6);
            if (std::abs(r.timing[in.id].ready_ns - (r.timing[d].end_ns + lat)) < 1e-3) ++binds;
        }
    CHECK(cross > 0);
    CHECK(binds > 0);  // somewhere the hand-off is what the consumer waited for
}
