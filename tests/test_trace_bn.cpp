// The batch_norm_bwd trace: HBM byte totals against closed forms, instruction counts by hand,
// the multibuffering dependency edges and the direct_x residency handoff.
#include <catch2/catch.hpp>

#include <cstring>
#include <set>

#include "kernels/batch_norm_bwd/batch_norm_bwd.h"
#include "sim/config/run_config.h"
#include "tests/test_util.h"
#include "tests/bn_fixtures.h"

using namespace bnsim;
using namespace bnsim::bn;
using bnsim::test::bn_generate;
using bnsim::test::bn_params;

namespace {

bool is(const Instruction& in, int phase, const char* what) {
    return in.tag.phase == phase && std::strcmp(in.tag.what, what) == 0;
}

std::vector<const Instruction*> find_all(const Trace& t, int phase, const char* what, int unit = -2, int core = 0) {
    std::vector<const Instruction*> out;
    for (const auto& in : t.instructions())
        if (in.core == core && is(in, phase, what) && (unit == -2 || in.tag.unit == unit)) out.push_back(&in);
    return out;
}

bool depends_on(const Instruction& in, uint32_t id) {
    return std::find(in.deps.begin(), in.deps.end(), id) != in.deps.end();
}

// Closed form for one core owning `elems` elements of dy in uniform tiles of `tile` elements,
// `resident` of them kept in SBUF: dy once, x twice, direct_x (bf16) stored and reloaded for the
// non-resident tiles, three statistics columns (+ beta when the mask is recomputed), dx once,
// dbeta and dgamma once.
struct Bytes {
    uint64_t read, write;
};
Bytes closed_form(const Params& p, uint64_t elems, uint64_t tile, uint64_t resident, uint64_t channels) {
    const uint64_t ds = uint64_t(dtype_size(p.dtype));
    const uint64_t staged = (elems - resident * tile) * 2;
    Bytes b;
    b.read = elems * ds * 3 + staged + 3 * channels * 4 + (p.uses_mask() ? elems : 0) +
             (p.recomputes_mask() ? channels * 4 : 0);
    b.write = elems * ds + staged + 2 * channels * 4;
    return b;
}

void check_bytes(const GeneratedKernel& k, Bytes expect) {
    auto s = compute_stats(k.trace);
    CHECK(s.hbm_read_bytes == expect.read);
    CHECK(s.hbm_write_bytes == expect.write);
}

}  // namespace

TEST_CASE("HBM bytes of the seed shape match the closed form") {
    // 32 units of 128 x 4096, interleave 7 -> 7 resident tiles.
    Params p = bn_params(64, 64, 1, 64, 64);
    const uint64_t E = 64ull * 64 * 4096;
    check_bytes(bn_generate(p), closed_form(p, E, 128 * 4096, 7, 64));
    // 3*32 MiB + 25 MiB of direct_x reloads (+ 768 B of statistics).
    CHECK(compute_stats(bn_generate(p).trace).hbm_read_bytes == 121ull * 1024 * 1024 + 768);
}

TEST_CASE("HBM bytes: fp32, odd spatial size, mask supplied, mask recomputed, residency off") {
    const uint64_t E = 64ull * 64 * 4096;
    SECTION("fp32: interleave 4") {
        Params p = bn_params(64, 64, 1, 64, 64, DType::fp32);
        check_bytes(bn_generate(p), closed_form(p, E, 128 * 4096, 4, 64));
    }
    SECTION("3x17x19: interleave 8, tiles of 128 x 969") {
        Params p = bn_params(64, 64, 3, 17, 19);
        check_bytes(bn_generate(p), closed_form(p, 64ull * 64 * 969, 128 * 969, 8, 64));
    }
    SECTION("supplied mask: one uint8 read of every element") {
        Params p = bn_params(64, 64, 1, 64, 64);
        p.fuse_relu = p.mask_supplied = true;
        check_bytes(bn_generate(p), closed_form(p, E, 128 * 4096, 5, 64));
    }
    SECTION("recomputed mask: beta read instead") {
        Params p = bn_params(64, 64, 1, 64, 64);
        p.fuse_relu = true;
        check_bytes(bn_generate(p), closed_form(p, E, 128 * 4096, 5, 64));
    }
    SECTION("residency off stores and reloads every tile") {
        Params p = bn_params(64, 64, 1, 64, 64);
        p.memory = MemoryChoice{4096, 7, false};
        check_bytes(bn_generate(p), closed_form(p, E, 128 * 4096, 0, 64));
    }
}

TEST_CASE("HBM bytes under LNC=2: batch sharding splits the tensors, redundant doubles them") {
    SECTION("batch") {
        Params p = bn_params(64, 64, 1, 64, 64);
        const uint64_t half = 32ull * 64 * 4096;
        Bytes one = closed_form(p, half, 128 * 4096, 7, 64);
        check_bytes(bn_generate(p, 2), {2 * one.read, 2 * one.write});
    }
    SECTION("channel: each core owns one 128-channel tile") {
        Params p = bn_params(8, 256, 1, 64, 64);
        const uint64_t half = 8ull * 128 * 4096;
        Bytes one = closed_form(p, half, 128 * 4096, 7, 128);
        check_bytes(bn_generate(p, 2), {2 * one.read, 2 * one.write});
    }
    SECTION("redundant") {
        Params p = bn_params(1, 64, 1, 64, 64);
        Bytes one = closed_form(p, 64ull * 4096, 64 * 4096, 1, 64);
        check_bytes(bn_generate(p, 2), {2 * one.read, 2 * one.write});
    }
}

TEST_CASE("instruction count of the seed shape, by hand") {
    // Per unit, phase 1: load dy, load x, dbeta accumulate, dy*x, direct_x, yx partial, store
    // direct_x (not for the 7 resident units) = 7; phase 2: load x, load direct_x (not
    // resident), var_x, dx, store dx = 5. Channel-tile prologue: 3 DMAs, rstd, direct_x_scale, 1
    // band broadcast = 6. Epilogue: dbeta gather (2 shuffles + reduce), reduce partials, yx gather
    // (2 + 1), means*dbeta, dgamma, *rstd, 2 stores = 12. Coefficients: 5 + 3 broadcasts = 8.
    auto k = bn_generate(bn_params(64, 64, 1, 64, 64));
    auto s = compute_stats(k.trace);
    CHECK(s.total == 6 + (32 * 7 - 7) + 12 + 8 + (32 * 5 - 7));
    CHECK(s.dma == 3 + 32 * 3 - 7 + 2 + 32 * 3 - 7);
    CHECK(s.by_opcode[int(Opcode::NcStreamShuffle)] == 1 + 4 + 3);
    CHECK(s.by_engine[int(Engine::Act)] == 1 + 32 * 2 + 32);
}

TEST_CASE("tile i+interleave's loads wait for tile i's readers of the same slot, and only those") {
    Params p = bn_params(64, 64, 1, 64, 64);
    p.memory = MemoryChoice{4096, 2, true};
    auto k = bn_generate(p);
    const Trace& t = k.trace;
    for (int i = 0; i + 2 < 32; ++i) {
        const Instruction& load_next_same_slot = *find_all(t, 1, "load dy", i + 2).at(0);
        for (const char* reader : {"dbeta accumulate", "dy*x", "direct_x"}) {
            INFO("unit " << i << " reader " << reader);
            CHECK(depends_on(load_next_same_slot, find_all(t, 1, reader, i).at(0)->id));
        }
        // The load into the other slot is independent of tile i.
        const Instruction& load_other_slot = *find_all(t, 1, "load dy", i + 1).at(0);
        for (uint32_t d : load_other_slot.deps) CHECK(t.instructions()[d].tag.unit != i);
    }
    // And the direct_x slot: unit i+2's accumulate (which writes it) waits for unit i's store.
    const Instruction& acc = *find_all(t, 1, "dbeta accumulate", 5).at(0);
    CHECK(depends_on(acc, find_all(t, 1, "store direct_x", 3).at(0)->id));
}

TEST_CASE("residency handoff: the last interleave units skip the direct_x store and reload") {
    auto k = bn_generate(bn_params(64, 64, 1, 64, 64));  // 32 units, interleave 7
    const Trace& t = k.trace;
    for (int u = 0; u < 32; ++u) {
        const bool resident = u >= 25;
        INFO("unit " << u);
        CHECK(find_all(t, 1, "store direct_x", u).size() == (resident ? 0u : 1u));
        CHECK(find_all(t, 2, "load direct_x", u).size() == (resident ? 0u : 1u));
        const Instruction& dx = *find_all(t, 2, "dx", u).at(0);
        if (resident)  // reads the slot phase 1 left in SBUF
            CHECK(depends_on(dx, find_all(t, 1, "direct_x", u).at(0)->id));
        else
            CHECK(depends_on(dx, find_all(t, 2, "load direct_x", u).at(0)->id));
    }
    // Phase 2 starts with the resident tail: its first unit is 25.
    for (const auto& in : t.instructions())
        if (in.tag.phase == 2 && in.tag.unit >= 0) {
            CHECK(in.tag.unit == 25);
            break;
        }
}

TEST_CASE("batch sharding emits the two sendrecv exchanges per core, one per pipe") {
    auto k = bn_generate(bn_params(64, 64, 1, 64, 64), 2);
    for (int core = 0; core < 2; ++core) {
        std::set<int> pipes;
        for (const auto& in : k.trace.instructions())
            if (in.core == core && in.opcode == Opcode::SendRecv) {
                pipes.insert(in.pipe);
                CHECK(in.peer_core == 1 - core);
                CHECK(in.srcs.at(1).region.core == 1 - core);
            }
        CHECK(pipes == std::set<int>{0, 1});
    }
}

TEST_CASE("RunConfig::generate: dependencies derived, or left for later to the same edges") {
    // The batch_norm_bwd kernel leaves its dependencies to the caller: generate() derives them,
    // generate(later) does not, and deriving afterwards gives the same edges.
    const RunConfig cfg = test::default_config({{"memory", "{f_tile: 1024, interleave: 2, direct_x_residency: true}"}});
    const GeneratedKernel now = cfg.generate();
    GeneratedKernel later = cfg.generate(RunConfig::Dependencies::later);
    CHECK(now.trace.deps_derived);
    CHECK_FALSE(later.trace.deps_derived);
    REQUIRE(later.trace.size() == now.trace.size());
    size_t edges = 0;
    for (const auto& in : later.trace.instructions()) edges += in.deps.size();
    CHECK(edges == 0);
    derive_dependencies(later.trace);
    CHECK(later.trace.deps_derived);
    size_t with_deps = 0;
    for (size_t i = 0; i < now.trace.size(); ++i) {
        CHECK(later.trace.instructions()[i].deps == now.trace.instructions()[i].deps);
        with_deps += !now.trace.instructions()[i].deps.empty();
    }
    CHECK(with_deps > now.trace.size() / 2);
}
