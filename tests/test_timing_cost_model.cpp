// The cost model and the DMA descriptor split against hand calculations, on a hardware config
// built here (so calibration moving the YAML's values does not move these expectations).
#include <catch2/catch.hpp>

#include <cmath>

#include "models/act_reduce_registers.h"
#include "models/cost_model.h"
#include "models/dma_descriptor.h"
#include "models/dma_lifecycle.h"
#include "models/hbm.h"

using namespace bnsim;

namespace {

HwConfig hand_hw() {
    HwConfig hw;
    hw.name = "hand";
    hw.engines[int(Engine::Sync)] = {1.2, 64};
    hw.engines[int(Engine::Act)] = {1.2, 64};
    hw.engines[int(Engine::Dve)] = {0.96, 64};
    hw.engines[int(Engine::Pool)] = {1.2, 64};
    hw.engines[int(Engine::Pe)] = {2.4, 64};
    hw.act.accumulate_extra_cycles = 64;
    hw.act.read_accumulator_ns = 279;
    auto row = [](Engine e, Opcode op, const char* dt, double fixed, double per, double mn) {
        CostEntry c;
        c.engine = e;
        c.opcode = op;
        c.dtype = dt;
        c.fixed_cycles = fixed;
        c.cycles_per_elem = per;
        c.min_cycles = mn;
        c.source = "test";
        return c;
    };
    hw.costs = {row(Engine::Act, Opcode::Activation, "any", 352, 1.0, 64),
                row(Engine::Dve, Opcode::TensorTensor, "bfloat16", 154, 0.5, 64),
                row(Engine::Dve, Opcode::TensorTensor, "any", 154, 1.0, 64)};
    hw.dma.engines_per_core = 16;
    hw.dma.queues_per_engine = 16;
    hw.dma.rows_per_engine = 8;
    hw.dma.engine_bandwidth_gbps = 23;
    hw.dma.descriptor_overhead_ns = 8;
    hw.dma.min_queue_occupancy_ns = 800;
    hw.dma.issue_ns = 599;
    hw.dma.dispatch_ns = 751;
    hw.dma.completion_ns = 314.5;
    hw.dma.hw_dge_units = 2;
    hw.dma.sw_dge_issue_ns = 1200;
    hw.dma.trigger_cycles = 64;
    hw.link.latency_ns = 354;
    hw.link.bandwidth_gbps = 100;
    hw.link.gpsimd_path_max_free_elems = 256;
    hw.link.gpsimd_dma_bandwidth_gbps = 307;
    hw.hbm.bandwidth_gbps = 725;
    hw.hbm.channels = 16;
    hw.hbm.interleave_bytes = 256;
    hw.hbm.latency_ns = 120;
    return hw;
}

Operand sbuf_op(uint32_t parts, uint64_t addr, uint64_t bytes, DType dt) {
    return sbuf_operand(0, 0, parts, addr, bytes, dt);
}

Instruction compute(Engine e, Opcode op, uint64_t n, DType in_dt, DType out_dt) {
    Instruction in;
    in.engine = e;
    in.opcode = op;
    in.partitions = 128;
    in.free_elems = n;
    in.srcs = {sbuf_op(128, 0, n * dtype_size(in_dt), in_dt), sbuf_op(128, 65536, n * dtype_size(in_dt), in_dt)};
    in.dsts = {sbuf_op(128, 131072, n * dtype_size(out_dt), out_dt)};
    return in;
}

}  // namespace

TEST_CASE("cost model: first matching row, fixed + max(min, per_elem*N) at the engine clock") {
    const HwConfig hw = hand_hw();
    CostModel cm(hw);
    // all-bf16 tensor_tensor, N = 4096: the bf16 row, (154 + 0.5*4096) cycles at 0.96 GHz
    auto tt = compute(Engine::Dve, Opcode::TensorTensor, 4096, DType::bf16, DType::bf16);
    CHECK(cm.table_cycles(tt) == Approx(2202));
    CHECK(cm.engine_ns(tt) == Approx(2202 / 0.96));
    // bf16 inputs with an fp32 output fall to the "any" row: (154 + 4096) / 0.96
    auto tt32 = compute(Engine::Dve, Opcode::TensorTensor, 4096, DType::bf16, DType::fp32);
    CHECK(cm.engine_ns(tt32) == Approx(4250 / 0.96));
    // a tiny instruction pays the minimum: (154 + 64) / 0.96
    auto tiny = compute(Engine::Dve, Opcode::TensorTensor, 10, DType::bf16, DType::bf16);
    CHECK(cm.engine_ns(tiny) == Approx(218 / 0.96));
    // no row for the opcode: an error naming it
    auto tr = compute(Engine::Dve, Opcode::TensorReduce, 10, DType::fp32, DType::fp32);
    CHECK_THROWS_WITH(cm.engine_ns(tr), Catch::Contains("tensor_reduce"));
}

TEST_CASE("cost model: ACT reduce registers add accumulate cycles and the read-out cost") {
    const HwConfig hw = hand_hw();
    CostModel cm(hw);
    auto act = compute(Engine::Act, Opcode::Activation, 4096, DType::bf16, DType::bf16);
    CHECK(cm.engine_ns(act) == Approx(4448 / 1.2));
    act.accumulate = Accumulate::reset_accumulate;
    CHECK(cm.engine_ns(act) == Approx(4448 / 1.2 + 64 / 1.2));
    act.acc_readout = true;
    CHECK(cm.engine_ns(act) == Approx(4448 / 1.2 + 64 / 1.2 + 279));

    ActReduceRegisters regs;
    auto acc = act;
    acc.acc_readout = false;
    acc.accumulate = Accumulate::accumulate;
    CHECK_THROWS_WITH(regs.execute(acc), Catch::Contains("without a reset"));
    acc.accumulate = Accumulate::reset_accumulate;
    regs.execute(acc);
    acc.accumulate = Accumulate::accumulate;
    acc.acc_readout = true;
    regs.execute(acc);
    CHECK(regs.accumulations() == 2);
    CHECK(regs.readouts() == 1);
    auto readout_again = acc;
    readout_again.accumulate = Accumulate::none;
    CHECK_THROWS(regs.execute(readout_again));
}

TEST_CASE("DMA lifecycle: descriptors at plateau rate plus a fixed overhead, queue occupancy, triggers and fixed costs") {
    const HwConfig hw = hand_hw();
    CostModel cm(hw);
    DmaLifecycle rule(hw);
    // bytes / 23 B/ns + 8 ns
    CHECK(rule.descriptor_ns(2048) == Approx(89.0435 + 8).epsilon(1e-5));  // M7: one engine's 2 KiB, ~97 ns
    CHECK(rule.descriptor_ns(8192) == Approx(356.1739 + 8).epsilon(1e-5));
    CHECK(rule.descriptor_ns(8) == Approx(0.3478 + 8).epsilon(1e-4));
    // a queue holds a DMA at least 800 ns, longer if its descriptors take longer
    CHECK(rule.queue_occupancy_ns(97.0435) == Approx(800));
    CHECK(rule.queue_occupancy_ns(1432.7) == Approx(1432.7));
    CHECK(rule.next_dma_at(1000) == Approx(1800));

    Instruction dma;
    dma.engine = Engine::Sync;
    dma.opcode = Opcode::DmaCopy;
    CHECK(cm.engine_ns(dma) == Approx(64 / 1.2));
    CHECK(rule.fixed_ns(dma.dma.dge) == Approx(599 + 751 + 314.5));
    dma.engine = Engine::Pool;
    dma.dma.dge = DgeMode::software;
    CHECK(cm.engine_ns(dma) == Approx(64 / 1.2 + 1200));
    CHECK(rule.fixed_ns(dma.dma.dge) == Approx(751 + 314.5));
    // pre-generated descriptors: a Sync trigger, no issue phase, no software generation
    dma.engine = Engine::Sync;
    dma.dma.dge = DgeMode::none;
    CHECK(cm.engine_ns(dma) == Approx(64 / 1.2));
    CHECK(rule.fixed_ns(dma.dma.dge) == Approx(751 + 314.5));
}

TEST_CASE("DMA lifecycle: issue per DGE mode, trains per engine, and the scheduler's ideal timeline") {
    const HwConfig hw = hand_hw();  // 2 DGE units, issue 599, dispatch 751, completion 314.5, 800 ns occupancy
    DmaLifecycle rule(hw);
    Dge dge(hw.dma);
    // hardware, blocks not bound: the unit that frees first; two units, so the third waits for the first
    DmaIssue a = rule.issue(DgeMode::hardware, Engine::Sync, 0, 100, dge);
    DmaIssue b = rule.issue(DgeMode::hardware, Engine::Sync, 0, 100, dge);
    DmaIssue c = rule.issue(DgeMode::hardware, Engine::Sync, 0, 100, dge);
    CHECK(a.start == 100);
    CHECK(a.end == Approx(699));
    CHECK(a.dispatch == Approx(699 + 751));
    CHECK(b.start == 100);
    CHECK(c.start == Approx(699));
    CHECK(c.dispatch == Approx(699 + 599 + 751));
    {
        // bound to the issuer: Sync's DMAs queue on its block one after another, ACT's take the other
        HwConfig bound_hw = hw;
        bound_hw.dma.dge_bound_to_issuer = 1;
        Dge bound(bound_hw.dma);
        const DmaIssue s1 = rule.issue(DgeMode::hardware, Engine::Sync, 0, 100, bound);
        const DmaIssue s2 = rule.issue(DgeMode::hardware, Engine::Sync, 0, 100, bound);
        const DmaIssue a1 = rule.issue(DgeMode::hardware, Engine::Act, 0, 100, bound);
        CHECK(s1.start == 100);
        CHECK(s2.start == Approx(699));
        CHECK(s2.end == Approx(699 + 599));
        CHECK(a1.start == 100);
        CHECK(bound.busy_ns() == Approx(3 * 599));
    }
    // software: generated on the Pool stream between reaching the DMA and triggering it
    DmaIssue s = rule.issue(DgeMode::software, Engine::Pool, 40, 1240, dge);
    CHECK(s.start == 40);
    CHECK(s.end == 1240);
    CHECK(s.dispatch == Approx(1240 + 751));
    DmaIssue n = rule.issue(DgeMode::none, Engine::Sync, 40, 90, dge);
    CHECK(n.start == 90);
    CHECK(n.dispatch == Approx(90 + 751));

    // a [128, 4096 B] load from 8 KiB rows: 8 strided rows per engine, 16 trains of 8 descriptors
    Trace t;
    HbmTensor x;
    x.name = "x";
    x.dtype = DType::bf16;
    x.rows = 128;
    x.row_bytes = 8192;
    t.add_tensor(x);
    Instruction ld;
    ld.opcode = Opcode::DmaCopy;
    ld.dma.queue = 2;
    Operand src;
    src.region = t.hbm(0, 0, 128, 0, 4096);
    src.dtype = DType::bf16;
    ld.srcs = {src};
    ld.dsts = {sbuf_op(128, 0, 4096, DType::bf16)};
    const DmaPlan p = rule.plan(ld, t);
    REQUIRE(p.trains.size() == 16);
    CHECK(p.descriptors() == 128);
    const double desc = 4096 / 23.0 + 8;
    for (uint16_t e = 0; e < 16; ++e) {
        CHECK(p.trains[e].engine == e);
        CHECK(p.trains[e].descriptors == 8);
        CHECK(p.trains[e].work_ns == Approx(8 * desc));
    }
    CHECK(rule.landing_ns(p.shape) == Approx(hw.hbm.latency_ns + hw.sbuf.access_latency_ns));

    // two of them back to back on the ideal timeline: the second waits for the engines
    IdealDmaTimeline tl(rule);
    const double lat = hw.hbm.latency_ns + hw.sbuf.access_latency_ns;
    const double first = tl.run(p, 0, 0).end;
    CHECK(first == Approx(599 + 751 + 8 * desc + lat + 314.5));
    const double second = tl.run(p, 0, 0).end;  // the other DGE unit, so the same dispatch
    CHECK(second == Approx(599 + 751 + 16 * desc + lat + 314.5));
    // a small DMA on the same queue waits for the queue's occupancy, not only the engine
    Instruction small = ld;
    small.srcs[0].region = t.hbm(0, 0, 8, 0, 64);  // one engine, 8 rows of 64 B
    small.dsts = {sbuf_op(8, 0, 64, DType::bf16)};
    IdealDmaTimeline tl2(rule);
    const DmaPlan sp = rule.plan(small, t);
    REQUIRE(sp.trains.size() == 1);
    const double s1 = tl2.run(sp, 0, 0).end;
    const double s2 = tl2.run(sp, 0, 0).end;
    CHECK(s2 - s1 == Approx(800));  // 8 x (64/23 + 8) = 86 ns of work, held 800 ns
}

TEST_CASE("cost model: sendrecv takes the GpSimd path up to the free-size limit") {
    const HwConfig hw = hand_hw();
    CostModel cm(hw);
    Instruction sr;
    sr.engine = Engine::Pool;
    sr.opcode = Opcode::SendRecv;
    sr.free_elems = 1;
    sr.srcs = {sbuf_op(64, 0, 4, DType::fp32)};  // 64 partitions x 4 B
    CHECK(cm.sendrecv_uses_gpsimd_path(sr));
    CHECK(cm.sendrecv_ns(sr) == Approx(354 + 256 / 307.0));
    sr.free_elems = 1024;
    sr.srcs = {sbuf_op(128, 0, 4096, DType::fp32)};
    CHECK_FALSE(cm.sendrecv_uses_gpsimd_path(sr));
    CHECK(cm.sendrecv_ns(sr) == Approx(354 + 128 * 4096 / 100.0));
}

TEST_CASE("DMA split: one descriptor per partition row, 8 rows per engine, HBM addresses") {
    const HwConfig hw = hand_hw();
    Trace t;
    HbmTensor x;
    x.name = "x";
    x.dtype = DType::bf16;
    x.rows = 256;
    x.row_bytes = 16384;
    t.add_tensor(x);  // base 0
    HbmTensor m;
    m.name = "mask";
    m.dtype = DType::u8;
    m.rows = 256;
    m.row_bytes = 8192;
    const uint32_t mid = t.add_tensor(m);
    const uint64_t mbase = t.tensor(mid).base_addr;
    CHECK(mbase == 256 * 16384);

    Instruction ld;
    ld.id = 7;
    ld.opcode = Opcode::DmaCopy;
    ld.dma.queue = 3;
    Operand src;
    src.region = t.hbm(0, 128, 256, 8192, 16384);  // rows 128.., second half of each row
    src.dtype = DType::bf16;
    ld.srcs = {src};
    ld.dsts = {sbuf_op(128, 0, 8192, DType::bf16)};
    auto d = split_dma(ld, t, hw);
    REQUIRE(d.size() == 128);
    for (uint32_t r = 0; r < 128; ++r) {
        CHECK(d[r].engine == r / 8);
        CHECK(d[r].queue == 3);
        CHECK(d[r].dma == 7);
        CHECK(d[r].bytes == 8192);
        CHECK(d[r].hbm_bytes == 8192);
        CHECK(d[r].hbm_addr == (128 + r) * 16384ull + 8192);
        CHECK_FALSE(d[r].hbm_write);
    }
    // P = 4: one engine
    ld.srcs[0].region = t.hbm(0, 0, 4, 0, 8192);
    ld.dsts = {sbuf_op(4, 0, 8192, DType::bf16)};
    for (const auto& e : split_dma(ld, t, hw)) CHECK(e.engine == 0);
    // a casting load u8 -> bf16: the engine moves the wider side, HBM serves the narrow one
    Instruction cast = ld;
    cast.srcs[0].region = t.hbm(mid, 0, 128, 0, 4096);
    cast.srcs[0].dtype = DType::u8;
    cast.dsts = {sbuf_op(128, 0, 8192, DType::bf16)};
    auto c = split_dma(cast, t, hw);
    REQUIRE(c.size() == 128);
    CHECK(c[5].bytes == 8192);
    CHECK(c[5].hbm_bytes == 4096);
    CHECK(c[5].hbm_addr == mbase + 5 * 8192);
    // a store: the HBM side is written
    Instruction st = ld;
    st.srcs = {sbuf_op(128, 0, 8192, DType::bf16)};
    Operand dst;
    dst.region = t.hbm(0, 0, 128, 0, 8192);
    dst.dtype = DType::bf16;
    st.dsts = {dst};
    auto s = split_dma(st, t, hw);
    CHECK(s[0].hbm_write);
    CHECK(s[127].engine == 15);
    // a queue the engines do not have
    st.dma.queue = 16;
    CHECK_THROWS_WITH(split_dma(st, t, hw), Catch::Contains("queue 16"));
}

TEST_CASE("HBM: address interleave over channels and channel contention") {
    std::vector<uint64_t> out;
    // [100, 1100) in 256 B granules over 4 channels: granules 0..4 -> ch 0,1,2,3,0
    Hbm::split_channels(100, 1000, 256, 4, out);
    REQUIRE(out.size() == 4);
    CHECK(out[0] == 156 + 76);
    CHECK(out[1] == 256);
    CHECK(out[2] == 256);
    CHECK(out[3] == 256);
    Hbm::split_channels(300, 10, 256, 4, out);  // inside granule 1
    CHECK(out[1] == 10);
    CHECK(out[0] + out[2] + out[3] == 0);

    HbmParams p;
    p.bandwidth_gbps = 725;
    p.channels = 16;
    p.interleave_bytes = 256;
    p.latency_ns = 120;
    Hbm hbm("hbm_test", p);
    const double ch_bw = 725.0 / 16;
    CHECK(hbm.transfer(0, 256, false, 0) == Approx(256 / ch_bw));         // channel 0
    CHECK(hbm.transfer(4096, 256, false, 0) == Approx(2 * 256 / ch_bw));  // channel 0 again: queued
    CHECK(hbm.transfer(256, 256, true, 0) == Approx(256 / ch_bw));        // channel 1: free
    // 8 KiB over all 16 channels: 512 B each, after channel 0's 512 B backlog
    CHECK(hbm.transfer(0, 8192, false, 0) == Approx(1024 / ch_bw));
    CHECK(hbm.bytes_read() == 256 + 256 + 8192);
    CHECK(hbm.bytes_written() == 256);
}

TEST_CASE("DMA split: with merge_contiguous_rows an engine's contiguous rows form one descriptor") {
    HwConfig hw = hand_hw();
    hw.dma.merge_contiguous_rows = 1;
    Trace t;
    HbmTensor x;
    x.name = "x";
    x.dtype = DType::bf16;
    x.rows = 128;
    x.row_bytes = 256;
    t.add_tensor(x);
    HbmTensor y = x;
    y.name = "y";
    y.row_bytes = 8192;
    const uint32_t ty = t.add_tensor(y);
    Instruction ld;
    ld.opcode = Opcode::DmaCopy;
    Operand src;
    src.region = t.hbm(0, 0, 128, 0, 256);  // a contiguous [128, 128] bf16 block
    src.dtype = DType::bf16;
    ld.srcs = {src};
    ld.dsts = {sbuf_op(128, 0, 256, DType::bf16)};
    auto d = split_dma(ld, t, hw);
    REQUIRE(d.size() == 16);  // one 2 KiB transfer per engine
    for (uint16_t e = 0; e < 16; ++e) {
        CHECK(d[e].engine == e);
        CHECK(d[e].bytes == 2048);
        CHECK(d[e].hbm_bytes == 2048);
        CHECK(d[e].hbm_addr == e * 2048ull);
    }
    // rows strided in HBM (a 256 B tile of 8 KiB rows) stay one descriptor each
    ld.srcs[0].region = t.hbm(ty, 0, 128, 0, 256);
    CHECK(split_dma(ld, t, hw).size() == 128);
    hw.dma.merge_contiguous_rows = 0;
    ld.srcs[0].region = t.hbm(0, 0, 128, 0, 256);
    CHECK(split_dma(ld, t, hw).size() == 128);
}
