// The cost key (issue 10): a cost row may narrow its match by ALU ops, each operand's dtype, the
// source/destination memory, the number of broadcast operands and accumulate/readout; the
// matching row naming the most dimensions prices the instruction. One case per dimension, on
// rows built here with a 1 GHz clock (cycles = ns) so each expected figure is per_elem x N.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_run.h"
#include "models/cost_model.h"
#include "sim/config/run_config.h"

using namespace bnsim;

namespace {

constexpr uint64_t kN = 100;  // free elements per partition

CostEntry row(Engine e, Opcode op, double per_elem, const char* id = "") {
    CostEntry c;
    c.id = id;
    c.engine = e;
    c.opcode = op;
    c.cycles_per_elem = per_elem;
    c.source = "test";
    return c;
}

HwConfig hw_with(std::vector<CostEntry> rows) {
    HwConfig hw;
    for (Engine e : kAllEngines) hw.engines[int(e)] = {1.0, 64};
    hw.costs = std::move(rows);
    return hw;
}

Operand sbuf(DType t) { return sbuf_operand(0, 0, 128, 0, kN * uint64_t(dtype_size(t)), t); }
Operand psum(DType t) {
    Operand o = sbuf(t);
    o.region.space = Space::Psum;
    return o;
}

Instruction instr(Engine e, Opcode op, std::vector<Operand> srcs, Operand dst) {
    Instruction i;
    i.engine = e;
    i.opcode = op;
    i.srcs = std::move(srcs);
    i.dsts = {dst};
    i.partitions = 128;
    i.free_elems = kN;
    return i;
}

double ns(const HwConfig& hw, const Instruction& i) { return CostModel(hw).engine_ns(i); }

}  // namespace

TEST_CASE("cost key: the ALU op pair selects the scalar_tensor_tensor row") {
    CostEntry sub_mult = row(Engine::Dve, Opcode::ScalarTensorTensor, 0.5, "sub_mult");
    sub_mult.alu = std::vector<AluOp>{AluOp::subtract, AluOp::mult};
    // the specific row comes last: specificity, not order, decides
    const HwConfig hw = hw_with({row(Engine::Dve, Opcode::ScalarTensorTensor, 2.0, "generic"), sub_mult});
    Instruction i = instr(Engine::Dve, Opcode::ScalarTensorTensor, {sbuf(DType::bf16), sbuf(DType::bf16)}, sbuf(DType::bf16));
    i.alu[0] = AluOp::subtract;
    i.alu[1] = AluOp::mult;
    CHECK(ns(hw, i) == Approx(50));
    CHECK(CostModel(hw).entry(i).id == "sub_mult");
    i.alu[1] = AluOp::subtract;
    CHECK(ns(hw, i) == Approx(200));
    CHECK(CostModel(hw).entry(i).id == "generic");
    // bypass ops do not count: a single subtract matches alu: [subtract]
    CostEntry one = row(Engine::Dve, Opcode::ScalarTensorTensor, 1.0, "one");
    one.alu = std::vector<AluOp>{AluOp::subtract};
    const HwConfig hw1 = hw_with({row(Engine::Dve, Opcode::ScalarTensorTensor, 2.0), one});
    i.alu[1] = AluOp::bypass;
    CHECK(ns(hw1, i) == Approx(100));
}

TEST_CASE("cost key: each input's dtype and the output dtype select the row") {
    CostEntry all_bf16 = row(Engine::Dve, Opcode::TensorReduce, 0.5, "bf16");
    all_bf16.dtype = "bfloat16";
    CostEntry bf16_to_fp32 = row(Engine::Dve, Opcode::TensorReduce, 1.0, "bf16->fp32");
    bf16_to_fp32.in = std::vector<DType>{DType::bf16};
    bf16_to_fp32.out = DType::fp32;
    const HwConfig hw = hw_with({row(Engine::Dve, Opcode::TensorReduce, 1.5, "any"), all_bf16, bf16_to_fp32});
    CHECK(ns(hw, instr(Engine::Dve, Opcode::TensorReduce, {sbuf(DType::bf16)}, sbuf(DType::bf16))) == Approx(50));
    CHECK(ns(hw, instr(Engine::Dve, Opcode::TensorReduce, {sbuf(DType::bf16)}, sbuf(DType::fp32))) == Approx(100));
    CHECK(ns(hw, instr(Engine::Dve, Opcode::TensorReduce, {sbuf(DType::fp32)}, sbuf(DType::fp32))) == Approx(150));

    // a list gives each input's dtype in operand order
    CostEntry mixed = row(Engine::Dve, Opcode::TensorTensor, 3.0, "bf16,fp32");
    mixed.in = std::vector<DType>{DType::bf16, DType::fp32};
    const HwConfig hw2 = hw_with({row(Engine::Dve, Opcode::TensorTensor, 1.0), mixed});
    CHECK(ns(hw2, instr(Engine::Dve, Opcode::TensorTensor, {sbuf(DType::bf16), sbuf(DType::fp32)}, sbuf(DType::fp32))) ==
          Approx(300));
    CHECK(ns(hw2, instr(Engine::Dve, Opcode::TensorTensor, {sbuf(DType::fp32), sbuf(DType::bf16)}, sbuf(DType::fp32))) ==
          Approx(100));
}

TEST_CASE("cost key: a PSUM source or destination selects the row") {
    CostEntry from_psum = row(Engine::Dve, Opcode::TensorCopy, 1.0, "psum->");
    from_psum.src_mem = Space::Psum;
    CostEntry to_psum = row(Engine::Dve, Opcode::TensorCopy, 2.0, "->psum");
    to_psum.dst_mem = Space::Psum;
    const HwConfig hw = hw_with({row(Engine::Dve, Opcode::TensorCopy, 0.5), from_psum, to_psum});
    CHECK(ns(hw, instr(Engine::Dve, Opcode::TensorCopy, {sbuf(DType::fp32)}, sbuf(DType::fp32))) == Approx(50));
    CHECK(ns(hw, instr(Engine::Dve, Opcode::TensorCopy, {psum(DType::fp32)}, sbuf(DType::fp32))) == Approx(100));
    CHECK(ns(hw, instr(Engine::Dve, Opcode::TensorCopy, {sbuf(DType::fp32)}, psum(DType::fp32))) == Approx(200));
}

TEST_CASE("cost key: the number of broadcast per-partition operands selects the row") {
    std::vector<CostEntry> rows;
    for (int b = 0; b <= 2; ++b) {
        CostEntry r = row(Engine::Act, Opcode::Activation, 1.0);
        r.fixed_cycles = 200 + 90 * b;  // M8: each broadcast operand adds ~80-100 ns
        r.broadcasts = b;
        rows.push_back(r);
    }
    const HwConfig hw = hw_with(rows);
    Instruction i = instr(Engine::Act, Opcode::Activation, {sbuf(DType::fp32)}, sbuf(DType::fp32));
    CHECK(ns(hw, i) == Approx(300));
    i.scalar[0].column = sbuf(DType::fp32);
    CHECK(broadcast_operands(i) == 1);
    CHECK(ns(hw, i) == Approx(390));
    i.scalar[1].column = sbuf(DType::fp32);
    CHECK(ns(hw, i) == Approx(480));

    // M8's form: one row whose start-up grows by cycles_per_broadcast per operand read
    CostEntry act = row(Engine::Act, Opcode::Activation, 1.0);
    act.fixed_cycles = 200;
    act.cycles_per_broadcast = 90;
    const HwConfig hw2 = hw_with({act});
    Instruction j = instr(Engine::Act, Opcode::Activation, {sbuf(DType::fp32)}, sbuf(DType::fp32));
    CHECK(ns(hw2, j) == Approx(200 + 100));
    j.scalar[1].column = sbuf(DType::fp32);
    CHECK(ns(hw2, j) == Approx(200 + 90 + 100));
    j.scalar[0].column = sbuf(DType::fp32);
    CHECK(ns(hw2, j) == Approx(200 + 180 + 100));
}

TEST_CASE("the trn2 preset prices M8's instructions by per-operand dtype, PSUM source and broadcasts") {
    const RunConfig c = load_run_config(std::string(BNSIM_SOURCE_DIR) + "/configs/default.yaml");
    const CostModel cm(c.hw);
    // Expected: the rows of configs/hw/trn2.yaml fitted to M8, N = 100, DVE at 0.96 GHz, ACT at 1.2 GHz.
    // DVE tensor_copy bf16 -> fp32: its own row, (146.6 + 0.7712 N) cycles
    CHECK(cm.engine_ns(instr(Engine::Dve, Opcode::TensorCopy, {sbuf(DType::bf16)}, sbuf(DType::fp32))) ==
          Approx((146.6 + 77.12) / 0.96));
    // fp32 -> fp32: the generic row, (147.4 + 0.5128 N)
    CHECK(cm.engine_ns(instr(Engine::Dve, Opcode::TensorCopy, {sbuf(DType::fp32)}, sbuf(DType::fp32))) ==
          Approx((147.4 + 51.28) / 0.96));
    // bf16 -> bf16 SBUF to SBUF: the 4x row, (149.5 + 0.2583 N)
    CHECK(cm.engine_ns(instr(Engine::Dve, Opcode::TensorCopy, {sbuf(DType::bf16)}, sbuf(DType::bf16))) ==
          Approx((149.5 + 25.83) / 0.96));
    // PSUM fp32 -> SBUF: the PSUM row, (149.8 + 1.0032 N)
    CHECK(cm.engine_ns(instr(Engine::Dve, Opcode::TensorCopy, {psum(DType::fp32)}, sbuf(DType::fp32))) ==
          Approx((149.8 + 100.32) / 0.96));
    // ACT activation: 242.6 + 109.2 per broadcast + 1.0 N; from PSUM 194.2 + 114.4 per broadcast + 1.0433 N
    Instruction a = instr(Engine::Act, Opcode::Activation, {sbuf(DType::fp32)}, sbuf(DType::fp32));
    CHECK(cm.engine_ns(a) == Approx((242.6 + 100) / 1.2));
    a.scalar[0].column = sbuf(DType::fp32);
    CHECK(cm.engine_ns(a) == Approx((242.6 + 109.2 + 100) / 1.2));
    a.srcs = {psum(DType::fp32)};
    CHECK(cm.engine_ns(a) == Approx((194.2 + 114.4 + 104.33) / 1.2));
}

TEST_CASE("cost key: accumulate and readout select the row") {
    CostEntry acc = row(Engine::Act, Opcode::Activation, 2.0, "acc");
    acc.accumulate = true;
    CostEntry readout = row(Engine::Act, Opcode::Activation, 3.0, "readout");
    readout.accumulate = true;
    readout.readout = true;
    const HwConfig hw = hw_with({row(Engine::Act, Opcode::Activation, 1.0), acc, readout});
    const CostModel cm(hw);
    Instruction i = instr(Engine::Act, Opcode::Activation, {sbuf(DType::fp32)}, sbuf(DType::fp32));
    CHECK(cm.table_cycles(i) == Approx(100));
    i.accumulate = Accumulate::accumulate;
    CHECK(cm.table_cycles(i) == Approx(200));
    i.acc_readout = true;
    CHECK(cm.table_cycles(i) == Approx(300));
}

TEST_CASE("cost key: the most specific matching row wins and the first of equals") {
    CostEntry a = row(Engine::Dve, Opcode::TensorCopy, 1.0, "a");
    a.out = DType::fp32;
    CostEntry b = row(Engine::Dve, Opcode::TensorCopy, 2.0, "b");
    b.in = std::vector<DType>{DType::fp32};
    CostEntry c = row(Engine::Dve, Opcode::TensorCopy, 3.0, "c");
    c.in = std::vector<DType>{DType::fp32};
    c.out = DType::fp32;
    const Instruction i = instr(Engine::Dve, Opcode::TensorCopy, {sbuf(DType::fp32)}, sbuf(DType::fp32));
    CHECK(CostModel(hw_with({a, b})).entry(i).id == "a");
    CHECK(CostModel(hw_with({b, a})).entry(i).id == "b");
    CHECK(CostModel(hw_with({a, b, c})).entry(i).id == "c");
    CHECK(CostModel(hw_with({a, b, c})).row_index(i) == 2);
    CHECK(cost_row_specificity(c) == 2);
    // no matching row is an error naming the instruction
    CHECK_THROWS_AS(CostModel(hw_with({a})).entry(instr(Engine::Dve, Opcode::TensorCopy, {sbuf(DType::fp32)},
                                                        sbuf(DType::bf16))),
                    std::runtime_error);
}

TEST_CASE("the trn2 preset prices the kernel's op pairs by named estimate rows and the dump says so") {
    const std::string cfg = std::string(BNSIM_SOURCE_DIR) + "/configs/default.yaml";
    const RunConfig c = load_run_config(cfg);
    int estimates = 0;
    for (const auto& r : c.hw.costs)
        if (r.estimate) {
            ++estimates;
            INFO(r.id);
            CHECK_FALSE(r.id.empty());
            REQUIRE(r.uncertainty);
            CHECK(r.uncertainty->lo <= r.cycles_per_elem);
            CHECK(r.cycles_per_elem <= r.uncertainty->hi);
        }
    CHECK(estimates >= 3);
    const std::string dump = "cost_key_dump.jsonl";
    const std::string cmd = std::string(BNSIM_BINARY) + " trace " + cfg + " --dump " + dump + " > /dev/null";
    REQUIRE(std::system(cmd.c_str()) == 0);
    std::ifstream in(dump);
    std::string line;
    std::getline(in, line);  // header
    bool dx = false;
    int priced = 0;
    while (std::getline(in, line)) {
        const auto j = nlohmann::json::parse(line);
        if (j.contains("cost_row")) ++priced;
        if (j["opcode"] == "scalar_tensor_tensor") {
            REQUIRE(j.contains("cost_row"));
            CHECK(j["cost_row"]["id"] == "dve.stt.bf16.subtract_subtract");
            CHECK(j["cost_row"]["estimate"] == true);
            dx = true;
        }
        if (j["opcode"] == "dma_copy") CHECK_FALSE(j.contains("cost_row"));
    }
    CHECK(dx);
    CHECK(priced == 396 - 183);  // every engine instruction of the seed trace, no DMA
}

TEST_CASE("bnsim run says how much of each engine's busy time estimated cost rows priced") {
    const std::string cfg = std::string(BNSIM_SOURCE_DIR) + "/configs/default.yaml";
    const auto r = bnsim::test::run_bnsim({"run", cfg, "--json"});
    REQUIRE(r.exit_code == 0);
    const auto j = nlohmann::json::parse(r.out);
    const auto& e = j.at("engines");
    // DVE: the seed trace's 32 dx scalar_tensor_tensor (subtract->subtract, bf16, N = 4096), priced
    // by the estimate row dve.stt.bf16.subtract_subtract: (154 + 1.0 x 4096) cycles at 0.96 GHz each.
    CHECK(e.at("dve").at("estimated_busy_ns").get<double>() == Approx(32 * 4250 / 0.96).epsilon(1e-6));
    // Sync: its 183 DMA triggers, dma.trigger_cycles = 64 (an estimate) at the estimated 1.2 GHz.
    CHECK(e.at("sync").at("estimated_busy_ns").get<double>() == Approx(183 * 64 / 1.2).epsilon(1e-6));
    CHECK(e.at("sync").at("estimated_share").get<double>() == Approx(1.0));
    // ACT: every activation row is measured; only its function-table switches (act.table_switch_ns,
    // an estimate of 1283 ns each) are estimated: a whole number of them, at least rsqrt -> copy.
    const double switches = e.at("act").at("estimated_busy_ns").get<double>() / 1283.0;
    CHECK(switches == Approx(std::round(switches)).margin(1e-6));
    CHECK(switches >= 1);

    // --set reaches an estimate row by its id; DVE's estimated time grows by 32 x 4096 / 0.96.
    const auto hi = bnsim::test::run_bnsim(
        {"run", cfg, "--json", "--set", "hardware.costs.dve.stt.bf16.subtract_subtract.cycles_per_elem=2.0"});
    REQUIRE(hi.exit_code == 0);
    const auto jh = nlohmann::json::parse(hi.out);
    CHECK(jh.at("engines").at("dve").at("estimated_busy_ns").get<double>() ==
          Approx(32 * (4250 + 4096) / 0.96).epsilon(1e-6));
    // an unknown id or field is one clear error, exit 2
    const auto bad = bnsim::test::run_bnsim({"run", cfg, "--set", "hardware.costs.no.such.row.cycles_per_elem=1"});
    CHECK(bad.exit_code == 2);
    CHECK_THAT(bad.err, Catch::Contains("no cost row with id 'no.such.row'"));
    const auto bad_field = bnsim::test::run_bnsim(
        {"run", cfg, "--set", "hardware.costs.dve.stt.bf16.subtract_subtract.speed=1"});
    CHECK(bad_field.exit_code == 2);
}

TEST_CASE("cost rows found once price every instruction as the table does, under changed numbers too") {
    const RunConfig c = load_run_config(std::string(BNSIM_SOURCE_DIR) + "/configs/default.yaml",
                                        parse_overrides({"memory.f_tile=512", "memory.interleave=2"}));
    const GeneratedKernel k = c.generate();
    const CostRows rows = cost_rows(CostModel(c.hw), k.trace);
    REQUIRE(rows.size() == k.trace.size());
    // A scenario's table: every number changed, no key.
    HwConfig changed = c.hw;
    for (auto& r : changed.costs) {
        r.cycles_per_elem *= 1.5;
        r.fixed_cycles += 7;
    }
    REQUIRE(cost_keys_equal(c.hw.costs, changed.costs));
    const CostModel plain(changed), from_rows(changed, &rows);
    size_t priced = 0;
    for (const auto& in : k.trace.instructions()) {
        const CostEntry* want = plain.find(in);
        CHECK(from_rows.find(in) == want);
        CHECK(from_rows.engine_ns(in) == plain.engine_ns(in));
        priced += want != nullptr;
    }
    CHECK(priced > k.trace.size() / 4);  // the compute instructions; DMAs have no row
    // Keys that differ: a row's dtype, its ALU ops, the rows' order, a row fewer.
    auto differs = [&](const std::function<void(std::vector<CostEntry>&)>& edit) {
        std::vector<CostEntry> t = c.hw.costs;
        edit(t);
        return !cost_keys_equal(c.hw.costs, t);
    };
    CHECK(differs([](auto& t) { t[0].dtype = t[0].dtype == "any" ? "bfloat16" : "any"; }));
    CHECK(differs([](auto& t) { t[1].alu = std::vector<AluOp>{AluOp::add}; }));
    CHECK(differs([](auto& t) { std::swap(t[0], t[1]); }));
    CHECK(differs([](auto& t) { t.pop_back(); }));
    CHECK(differs([](auto& t) { t[2].broadcasts = 2; }));
}
