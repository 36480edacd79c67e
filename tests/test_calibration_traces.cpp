// Calibration microbenchmarks: the traces have the structure of the kernels behind the public
// measurements (counts, regions, and the vector_add loop's dependency edges worked out by hand).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "kernels/calibration/calibration.h"
#include "sim/config/run_config.h"
#include "tests/source_paths.h"

using namespace bnsim;
using namespace bnsim::cal;

namespace {

KernelTarget trn2() {
    KernelTarget t;
    t.partitions = 128;
    t.sbuf_usable_bytes = 212992;
    t.sbuf_align = 16;
    t.num_cores = 1;
    return t;
}

std::vector<uint32_t> deps_of(const Trace& tr, uint32_t id) {
    const auto& d = tr.instructions().at(id).deps;
    return std::vector<uint32_t>(d.begin(), d.end());
}
std::vector<uint32_t> ids(std::initializer_list<uint32_t> l) { return std::vector<uint32_t>(l); }
std::vector<uint32_t> measured(const GeneratedKernel& k) {
    return k.info["calibration"]["measured_instructions"].get<std::vector<uint32_t>>();
}


}  // namespace

TEST_CASE("dma_copy M1: one hardware-DGE DMA of A[4, 4096] bf16 into 4 partitions") {
    DmaCopyParams p;  // defaults are M1's
    GeneratedKernel k = generate_dma_copy(p, trn2());
    const Trace& tr = k.trace;
    REQUIRE(tr.size() == 1);
    const Instruction& in = tr.instructions()[0];
    CHECK(in.opcode == Opcode::DmaCopy);
    CHECK(in.engine == Engine::Sync);
    CHECK(in.dma.dge == DgeMode::hardware);
    CHECK(in.partitions == 4);
    CHECK(in.free_elems == 4096);
    CHECK(in.srcs[0].region.space == Space::Hbm);
    CHECK(in.srcs[0].region.bytes() == 32768);
    CHECK(in.dsts[0].region.space == Space::Sbuf);
    CHECK(in.dsts[0].region.rows() == 4);
    CHECK(in.dsts[0].region.bytes_per_row() == 8192);
    CHECK(measured(k) == ids({0}));
    CHECK(compute_stats(tr).hbm_read_bytes == 32768);
}

TEST_CASE("dma_copy streams rotate over the SBUF slots that fit, and only slot reuse adds edges") {
    DmaCopyParams p;
    p.partitions = 128;
    p.free = 16384;  // 32 KiB per partition: 6 slots fit in 208 KiB
    p.count = 16;
    GeneratedKernel k = generate_dma_copy(p, trn2());
    const Trace& tr = k.trace;
    REQUIRE(tr.size() == 16);
    CHECK(k.info["calibration"]["sbuf_slots"] == 6);
    for (uint32_t i = 0; i < 6; ++i) CHECK(deps_of(tr, i).empty());
    for (uint32_t i = 6; i < 16; ++i) CHECK(deps_of(tr, i) == ids({i - 6}));  // write-after-write on the slot
    // Each copy reads its own rows of the HBM tensor.
    CHECK(tr.instructions()[3].srcs[0].region.row_lo == 384);
    CHECK(tr.instructions()[3].srcs[0].region.row_hi == 512);
    CHECK(k.info["calibration"]["bytes"] == 16ull * 128 * 32768);

    p.count = 64;
    p.free = 16;  // 32 B per partition: every copy gets its own slot
    GeneratedKernel small = generate_dma_copy(p, trn2());
    for (const auto& in : small.trace.instructions()) CHECK(in.deps.empty());
}

TEST_CASE("dma_copy stores and software DGE") {
    DmaCopyParams p;
    p.direction = Direction::sbuf_to_hbm;
    p.dge = DgeMode::software;
    GeneratedKernel k = generate_dma_copy(p, trn2());
    const Instruction& in = k.trace.instructions()[0];
    CHECK(in.engine == Engine::Pool);
    CHECK(in.dma.dge == DgeMode::software);
    CHECK(in.srcs[0].region.space == Space::Sbuf);
    CHECK(in.dsts[0].region.space == Space::Hbm);
    CHECK(compute_stats(k.trace).hbm_write_bytes == 32768);
}

TEST_CASE("activation: load, one activation, store, and reduce accumulates and reads out") {
    ActivationParams p;
    GeneratedKernel k = generate_activation(p, trn2());
    const Trace& tr = k.trace;
    REQUIRE(tr.size() == 3);
    const Instruction& act = tr.instructions()[1];
    CHECK(act.opcode == Opcode::Activation);
    CHECK(act.engine == Engine::Act);
    CHECK(act.act_func == ActFunc::exp);
    CHECK(act.accumulate == Accumulate::none);
    CHECK(act.partitions == 128);
    CHECK(act.free_elems == 1024);
    CHECK(act.cost_dtype() == DType::fp32);
    CHECK(deps_of(tr, 1) == ids({0}));
    CHECK(deps_of(tr, 2) == ids({1}));
    CHECK(measured(k) == ids({1}));

    p.reduce = true;
    p.readout = true;
    GeneratedKernel r = generate_activation(p, trn2());
    REQUIRE(r.trace.size() == 4);  // + the read-out column's store
    const Instruction& ra = r.trace.instructions()[1];
    CHECK(ra.accumulate == Accumulate::reset_accumulate);
    CHECK(ra.acc_readout);
    REQUIRE(ra.dsts.size() == 2);
    CHECK(ra.dsts[1].region.bytes_per_row() == 4);
    CHECK(deps_of(r.trace, 3) == ids({1}));

    p.readout = false;
    GeneratedKernel nr = generate_activation(p, trn2());
    CHECK(nr.trace.size() == 3);
    CHECK(!nr.trace.instructions()[1].acc_readout);
    CHECK(nr.trace.instructions()[1].accumulate == Accumulate::reset_accumulate);
}

TEST_CASE("vector_op: one DVE instruction per op, inputs loaded first") {
    VectorOpParams p;
    for (VectorOp op : {VectorOp::tensor_copy, VectorOp::tensor_tensor, VectorOp::tensor_scalar, VectorOp::tensor_reduce}) {
        p.op = op;
        GeneratedKernel k = generate_vector_op(p, trn2());
        const Trace& tr = k.trace;
        const bool two = op == VectorOp::tensor_tensor;
        REQUIRE(tr.size() == (two ? 4u : 3u));
        const uint32_t m = two ? 2 : 1;
        const Instruction& in = tr.instructions()[m];
        CHECK(in.engine == Engine::Dve);
        CHECK(in.partitions == 128);
        CHECK(in.free_elems == 1024);
        CHECK(in.srcs.size() == (two ? 2u : 1u));
        CHECK(deps_of(tr, m) == (two ? ids({0, 1}) : ids({0})));
        CHECK(measured(k) == ids({m}));
        if (op == VectorOp::tensor_reduce) CHECK(in.dsts[0].region.bytes_per_row() == 4);
        else CHECK(in.dsts[0].region.bytes_per_row() == 4096);
    }
}

TEST_CASE("vector_add M4: the tile loop and its dependency edges by hand") {
    VectorAddParams p;  // n = 25600, [128, 2] tiles: 100 iterations
    p.buffers = 1;      // one buffer per tile: every iteration waits for the last
    GeneratedKernel k = generate_vector_add(p, trn2());
    const Trace& tr = k.trace;
    REQUIRE(tr.size() == 400);
    CHECK(k.info["calibration"]["iterations"] == 100);
    const TraceStats s = compute_stats(tr);
    CHECK(s.by_opcode[int(Opcode::DmaCopy)] == 300);
    CHECK(s.by_opcode[int(Opcode::TensorTensor)] == 100);
    CHECK(s.hbm_read_bytes == 2 * 25600 * 4);
    CHECK(s.hbm_write_bytes == 25600 * 4);
    // Same SBUF addresses every iteration.
    for (uint32_t i = 1; i < 100; ++i)
        for (uint32_t j = 0; j < 4; ++j) {
            const auto& a = tr.instructions()[4 * i + j];
            const auto& b = tr.instructions()[j];
            const auto& ra = a.opcode == Opcode::DmaCopy && a.dsts[0].region.space == Space::Hbm ? a.srcs[0] : a.dsts[0];
            const auto& rb = b.opcode == Opcode::DmaCopy && b.dsts[0].region.space == Space::Hbm ? b.srcs[0] : b.dsts[0];
            CHECK(ra.region.byte_lo == rb.region.byte_lo);
        }
    // Iteration i: 4i load a, 4i+1 load b, 4i+2 add, 4i+3 store. HBM column tiles advance by 8 bytes.
    CHECK(tr.instructions()[4 * 7].srcs[0].region.byte_lo == 7 * 2 * 4);
    CHECK(tr.instructions()[4 * 7 + 3].dsts[0].region.byte_lo == 7 * 2 * 4);
    CHECK(deps_of(tr, 0).empty());
    CHECK(deps_of(tr, 1).empty());
    CHECK(deps_of(tr, 2) == ids({0, 1}));  // read-after-write on both tiles
    CHECK(deps_of(tr, 3) == ids({2}));
    for (uint32_t i = 1; i < 100; ++i) {
        const uint32_t b = 4 * i;
        CHECK(deps_of(tr, b) == ids({b - 4, b - 2}));          // load a: after the last load a (WAW), the add (WAR)
        CHECK(deps_of(tr, b + 1) == ids({b - 3, b - 2}));      // load b: likewise
        CHECK(deps_of(tr, b + 2) == ids({b - 2, b - 1, b, b + 1}));  // add: WAW last add, WAR last store, RAW loads
        CHECK(deps_of(tr, b + 3) == ids({b + 2}));             // store: RAW its add
    }
    CHECK(s.dependency_edges == 3 + 99 * 9);

    p.free = 200;
    GeneratedKernel one = generate_vector_add(p, trn2());
    CHECK(one.trace.size() == 4);
    CHECK(one.trace.instructions()[0].free_elems == 200);
}

TEST_CASE("vector_add with rotating buffers: iteration i reuses iteration i-4's tiles and queues 3(i mod 4)+j") {
    VectorAddParams p;  // the default: 4 buffers per tile, 100 iterations of [128, 2] fp32 (8 B per partition)
    REQUIRE(p.buffers == 4);
    GeneratedKernel k = generate_vector_add(p, trn2());
    const Trace& tr = k.trace;
    REQUIRE(tr.size() == 400);
    CHECK(k.info["calibration"]["buffers"] == 4);
    const auto sbuf_of = [&](uint32_t id) {
        const auto& in = tr.instructions()[id];
        return in.opcode == Opcode::DmaCopy && in.dsts[0].region.space == Space::Hbm ? in.srcs[0] : in.dsts[0];
    };
    // Each tile's 4 buffers side by side, 16 B apart (8 B aligned to 16); the a, b, c blocks after each other.
    for (uint32_t i = 0; i < 8; ++i) {
        CHECK(sbuf_of(4 * i).region.byte_lo == 16 * (i % 4));
        CHECK(sbuf_of(4 * i + 1).region.byte_lo == 64 + 16 * (i % 4));
        CHECK(sbuf_of(4 * i + 3).region.byte_lo == 128 + 16 * (i % 4));
        CHECK(tr.instructions()[4 * i].dma.queue == 3 * (i % 4));
        CHECK(tr.instructions()[4 * i + 1].dma.queue == 3 * (i % 4) + 1);
        CHECK(tr.instructions()[4 * i + 3].dma.queue == 3 * (i % 4) + 2);
    }
    for (uint32_t i = 0; i < 100; ++i) {
        const uint32_t b = 4 * i;
        if (i < 4) {  // fresh buffers: only the add's loads and the store's add
            CHECK(deps_of(tr, b).empty());
            CHECK(deps_of(tr, b + 2) == ids({b, b + 1}));
        } else {      // the buffer's last use, four iterations back
            CHECK(deps_of(tr, b) == ids({b - 16, b - 14}));
            CHECK(deps_of(tr, b + 1) == ids({b - 15, b - 14}));
            CHECK(deps_of(tr, b + 2) == ids({b - 14, b - 13, b, b + 1}));
        }
        CHECK(deps_of(tr, b + 3) == ids({b + 2}));
    }
    CHECK(compute_stats(tr).dependency_edges == 4 * 3 + 96 * 9);
}

TEST_CASE("vector_add tensor_scalar form reads b through the scalar operand path") {
    VectorAddParams p;
    p.op = Opcode::TensorScalar;
    p.buffers = 1;
    GeneratedKernel k = generate_vector_add(p, trn2());
    const Instruction& add = k.trace.instructions()[2];
    CHECK(add.opcode == Opcode::TensorScalar);
    REQUIRE(add.srcs.size() == 1);
    REQUIRE(add.scalar[0].column);
    CHECK(add.scalar[0].column->region.byte_lo == k.trace.instructions()[1].dsts[0].region.byte_lo);
    CHECK(add.scalar[0].column->region.bytes_per_row() == 4);
    CHECK(deps_of(k.trace, 2) == ids({0, 1}));
    CHECK(deps_of(k.trace, 6) == ids({2, 3, 4, 5}));
    // With rotating buffers each add reads the b its own iteration loaded.
    p.buffers = 4;
    GeneratedKernel r = generate_vector_add(p, trn2());
    for (uint32_t i = 0; i < 8; ++i) {
        const Instruction& a = r.trace.instructions()[4 * i + 2];
        REQUIRE(a.scalar[0].column);
        CHECK(a.scalar[0].column->region.byte_lo == r.trace.instructions()[4 * i + 1].dsts[0].region.byte_lo);
        CHECK(deps_of(r.trace, 4 * i + 2) == (i < 4 ? ids({4 * i, 4 * i + 1}) : ids({4 * i - 14, 4 * i - 13, 4 * i, 4 * i + 1})));
    }
}

TEST_CASE("calibration kernels refuse what they cannot run, with the key and the reason") {
    auto msg = [](auto f) {
        try {
            f();
        } catch (const KernelError& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    VectorAddParams v;
    v.n = 25601;
    CHECK_THAT(msg([&] { generate_vector_add(v, trn2()); }), Catch::Contains("vector_add.n") && Catch::Contains("multiple of partitions"));
    v.n = 25600;
    v.free = 3;
    CHECK_THAT(msg([&] { generate_vector_add(v, trn2()); }), Catch::Contains("must divide n/partitions = 200"));
    DmaCopyParams d;
    d.partitions = 129;
    CHECK_THAT(msg([&] { generate_dma_copy(d, trn2()); }), Catch::Contains("dma_copy.partitions"));
    d.partitions = 128;
    d.free = 1 << 20;
    CHECK_THAT(msg([&] { generate_dma_copy(d, trn2()); }), Catch::Contains("212992 bytes per partition"));
    ActivationParams a;
    a.readout = true;
    CHECK_THAT(msg([&] { generate_activation(a, trn2()); }), Catch::Contains("reduce: true"));
    KernelTarget two = trn2();
    two.num_cores = 2;
    CHECK_THAT(msg([&] { generate_activation(ActivationParams{}, two); }), Catch::Contains("lnc: 1"));
}

TEST_CASE("every calibration config loads and generates") {
    for (const auto& e : std::filesystem::directory_iterator(kCal)) {
        if (e.path().filename() == "measurements.yaml" || e.path().extension() != ".yaml") continue;
        INFO(e.path().string());
        RunConfig c = load_run_config(e.path().string());
        GeneratedKernel k = c.generate();
        CHECK(k.trace.size() > 0);
        CHECK(k.info.contains("calibration"));
    }
    RunConfig m4 = load_run_config(kCal + "m4_vector_add_free2.yaml");
    CHECK(m4.kernel == "vector_add");
    CHECK(m4.generate().trace.size() == 400);
}
