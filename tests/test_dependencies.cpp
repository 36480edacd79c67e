// Dependency derivation from regions on hand-made traces: every edge kind, and the non-edges.
#include <catch2/catch.hpp>

#include "trace/trace.h"

using namespace bnsim;

namespace {

Operand sbuf(uint32_t p0, uint32_t p1, uint64_t b0, uint64_t b1, uint8_t core = 0) {
    return sbuf_operand(core, p0, p1, b0, b1 - b0, DType::fp32);
}

uint32_t op(Trace& t, std::vector<Operand> srcs, std::vector<Operand> dsts, uint8_t core = 0) {
    Instruction in;
    in.core = core;
    in.engine = Engine::Dve;
    in.opcode = Opcode::TensorCopy;
    in.srcs = std::move(srcs);
    in.dsts = std::move(dsts);
    return t.append(in).id;
}

const DepList& deps(const Trace& t, uint32_t id) { return t.instructions()[id].deps; }

}  // namespace

TEST_CASE("read-after-write, write-after-read and write-after-write edges") {
    Trace t;
    auto A = sbuf(0, 128, 0, 64), B = sbuf(0, 128, 64, 128), C = sbuf(0, 128, 128, 192);
    uint32_t w1 = op(t, {}, {A});       // writes A
    uint32_t r1 = op(t, {A}, {B});      // RAW on A
    uint32_t w2 = op(t, {C}, {A});      // WAR on A (r1 read it), WAW on A (w1)
    uint32_t r2 = op(t, {A, B}, {C});   // RAW on A (w2) and B (r1); WAR on C (w2 read it)
    derive_dependencies(t);
    CHECK(deps(t, w1).empty());
    CHECK(deps(t, r1) == std::vector<uint32_t>{w1});
    CHECK(deps(t, w2) == std::vector<uint32_t>{w1, r1});
    CHECK(deps(t, r2) == std::vector<uint32_t>{r1, w2});
}

TEST_CASE("disjoint partitions or bytes give no edge, partial overlap does") {
    Trace t;
    uint32_t w = op(t, {}, {sbuf(0, 64, 0, 64)});
    uint32_t other_parts = op(t, {sbuf(64, 128, 0, 64)}, {sbuf(64, 128, 512, 576)});
    uint32_t other_bytes = op(t, {sbuf(0, 64, 64, 128)}, {sbuf(0, 64, 1024, 1088)});
    uint32_t partial = op(t, {sbuf(32, 96, 32, 96)}, {sbuf(0, 1, 2048, 2052)});
    derive_dependencies(t);
    CHECK(deps(t, other_parts).empty());
    CHECK(deps(t, other_bytes).empty());
    CHECK(deps(t, partial) == std::vector<uint32_t>{w});
}

TEST_CASE("a write that covers an older access retires it, and later accesses reach it transitively") {
    Trace t;
    auto A = sbuf(0, 128, 0, 64);
    uint32_t w1 = op(t, {}, {A});
    uint32_t w2 = op(t, {}, {A});
    uint32_t r = op(t, {A}, {sbuf(0, 128, 64, 128)});
    derive_dependencies(t);
    CHECK(deps(t, w2) == std::vector<uint32_t>{w1});
    CHECK(deps(t, r) == std::vector<uint32_t>{w2});  // not w1: it is implied through w2
}

TEST_CASE("cores are separate programs: same SBUF addresses on two cores never alias") {
    Trace t;
    t.num_cores = 2;
    op(t, {}, {sbuf(0, 128, 0, 64, 0)}, 0);
    uint32_t r = op(t, {sbuf(0, 128, 0, 64, 1)}, {sbuf(0, 128, 64, 128, 1)}, 1);
    derive_dependencies(t);
    CHECK(deps(t, r).empty());
}

TEST_CASE("HBM regions are rows x bytes of a tensor") {
    Trace t;
    HbmTensor x;
    x.name = "x";
    x.rows = 8;
    x.row_bytes = 1024;
    uint32_t id = t.add_tensor(x);
    Operand rows03, rows47, rows2_5;
    rows03.region = t.hbm(id, 0, 4, 0, 1024);
    rows47.region = t.hbm(id, 4, 8, 0, 1024);
    rows2_5.region = t.hbm(id, 2, 6, 512, 1024);
    uint32_t w0 = op(t, {sbuf(0, 4, 0, 1024)}, {rows03});
    uint32_t w1 = op(t, {sbuf(0, 4, 0, 1024)}, {rows47});
    uint32_t r = op(t, {rows2_5}, {sbuf(0, 4, 4096, 4608)});
    derive_dependencies(t);
    CHECK(deps(t, w1) == std::vector<uint32_t>{});  // reads of the same SBUF bytes don't order
    CHECK(deps(t, r) == std::vector<uint32_t>{w0, w1});
    CHECK_THROWS(t.hbm(id, 0, 9, 0, 1024));
}

TEST_CASE("ACT reduce registers order an accumulation chain and its read-out") {
    Trace t;
    Instruction a;
    a.engine = Engine::Act;
    a.opcode = Opcode::Activation;
    a.srcs = {sbuf(0, 128, 0, 64)};
    a.dsts = {sbuf(0, 128, 64, 128)};
    a.accumulate = Accumulate::reset_accumulate;
    uint32_t first = t.append(a).id;
    a.srcs = {sbuf(0, 128, 256, 320)};
    a.dsts = {sbuf(0, 128, 512, 576)};
    a.accumulate = Accumulate::accumulate;
    uint32_t second = t.append(a).id;
    derive_dependencies(t);
    CHECK(deps(t, second) == std::vector<uint32_t>{first});
}

TEST_CASE("one instruction's writes: each sees the state before the instruction, none retires its own reads") {
    // The derivation retires what a write covers while it gathers the write's edges; an
    // instruction whose first write covers an access its second write only overlaps still
    // depends on it once, and its own read of the bytes it overwrites stays live.
    Trace t;
    auto A = sbuf(0, 128, 0, 64), wide = sbuf(0, 128, 0, 128), half = sbuf(0, 128, 32, 96);
    uint32_t w = op(t, {}, {A});
    uint32_t both = op(t, {A}, {wide, half});  // RAW and WAW on w; wide covers A and retires w
    uint32_t in_place = op(t, {half}, {half});  // reads what it writes: RAW and WAW on both
    uint32_t later = op(t, {}, {wide});         // in_place's read is live until here: WAR
    uint32_t after = op(t, {A}, {sbuf(0, 128, 256, 320)});
    derive_dependencies(t);
    CHECK(deps(t, both) == std::vector<uint32_t>{w});
    CHECK(deps(t, in_place) == std::vector<uint32_t>{both});
    CHECK(deps(t, later) == std::vector<uint32_t>{both, in_place});
    CHECK(deps(t, after) == std::vector<uint32_t>{later});  // w, both and in_place retired by later
}
