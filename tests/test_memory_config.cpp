// The kernel's memory-config search on a table of shapes. Expected values are worked out by
// hand from the budget formulas (docs/kernel-batch_norm_bwd.md), with usable SBUF
// 212992 B/partition and 16-byte alignment, so budget = 211968 and A(4) = 16:
//   fixed  = cols(6) + cols(3) + 12*A(4) = 96 + 48 + 192 = 336     (one or two channel tiles)
//   fixed1 = fixed + A(n_partials*4) + A(f*4) + cols(1 [+2 recompute])
//   fixed2 = fixed + A(f*2); slot1 = 2*A(f*ds) [+ A(f*2) fuse_relu]; slot2 = 2*A(f*ds); dxslot = A(f*2)
#include <catch2/catch.hpp>

#include "kernels/batch_norm_bwd/batch_norm_bwd.h"
#include "tests/bn_fixtures.h"
#include "kernels/batch_norm_bwd/memory_config.h"
#include "kernels/batch_norm_bwd/sbuf_allocator.h"
#include "kernels/batch_norm_bwd/sharding.h"

using namespace bnsim;
using namespace bnsim::bn;
using bnsim::test::bn_generate;
using bnsim::test::bn_params;

namespace {

struct Expect {
    int64_t f_tile;
    int interleave;
    int64_t n_sp;
    int rep;
    uint64_t p1, p2;
};

void check(const GeneratedKernel& k, const Expect& e, int core = 0) {
    const auto& c = k.info["sharding"]["cores"][core];
    CHECK(c["f_tile"].get<int64_t>() == e.f_tile);
    CHECK(c["interleave"].get<int>() == e.interleave);
    CHECK(c["replication"].get<int>() == e.rep);
    CHECK(c["sbuf_phase1_bytes"].get<uint64_t>() == e.p1);
    CHECK(c["sbuf_phase2_bytes"].get<uint64_t>() == e.p2);
    if (core == 0) CHECK(k.info["memory_config"]["n_sp_tiles"].get<int64_t>() == e.n_sp);
}

}  // namespace

TEST_CASE("seed shape B=64 C=64 64x64 bf16: f_tile 4096, interleave 7, replication 2") {
    // rep 2 -> n_partials = 32, A(128) = 128; fixed1 = 336+128+16384+16 = 16864;
    // per slot 2*8192 + 8192 = 24576; il 8 -> 213472 > 211968, il 7 -> 188896.
    // fixed2 = 336 + 8192 = 8528; p2(7) = 8528 + 7*24576 = 180560.
    check(bn_generate(bn_params(64, 64, 1, 64, 64)), {4096, 7, 1, 2, 188896, 180560});
}

TEST_CASE("partial channel tile C=200: two channel tiles, no replication") {
    // n_partials = 4, A(16) = 16; fixed1 = 336+16+16384+16 = 16752; units = 8 -> start at 8;
    // il 8 -> 213360 > budget; il 7 -> 188784; p2 = 180560.
    auto k = bn_generate(bn_params(4, 200, 1, 64, 64));
    check(k, {4096, 7, 1, 1, 188784, 180560});
    CHECK(k.info["sharding"]["n_c_tiles"] == 2);
}

TEST_CASE("C=32 with B=6 replicates 3 bands, interleave capped by the 2 work units") {
    // k from 128/32 = 4 down: 4 does not divide 6, 3 does. n_partials = 2, units = 2 -> il <= 2.
    // fixed1 = 336 + 16 + 16384 + 16 = 16752; p1(2) = 16752 + 2*24576 = 65904; p2 = 8528 + 49152.
    check(bn_generate(bn_params(6, 32, 1, 64, 64)), {4096, 2, 1, 3, 65904, 57680});
}

TEST_CASE("fp32 inputs double the slot cost: interleave 4") {
    // slot1 = 2*16384, + dxslot 8192 = 40960 per slot; (211968-16864)/40960 = 4.76 -> 4.
    check(bn_generate(bn_params(64, 64, 1, 64, 64, DType::fp32)), {4096, 4, 1, 2, 16864 + 4 * 40960, 8528 + 4 * 40960});
}

TEST_CASE("fuse_relu with a supplied mask adds a bf16 mask slot") {
    Params p = bn_params(64, 64, 1, 64, 64);
    p.fuse_relu = true;
    p.mask_supplied = true;
    // slot1 = 16384 + 8192 (mask) = 24576, + dxslot = 32768; (211968-16864)/32768 = 5.95 -> 5.
    check(bn_generate(p), {4096, 5, 1, 2, 16864 + 5 * 32768, 8528 + 5 * 24576});
}

TEST_CASE("fuse_relu recomputing the mask adds two columns (beta, true_beta)") {
    Params p = bn_params(64, 64, 1, 64, 64);
    p.fuse_relu = true;
    // fixed1 = 16864 + 2*16 = 16896; (211968-16896)/32768 = 5.95 -> 5.
    check(bn_generate(p), {4096, 5, 1, 2, 16896 + 5 * 32768, 8528 + 5 * 24576});
}

TEST_CASE("odd spatial size 3x17x19 = 969 elements: one short tile, alignment padding") {
    // f = 969; A(969*4 = 3876) = 3888; A(969*2 = 1938) = 1952.
    // fixed1 = 336 + 128 + 3888 + 16 = 4368; per slot 2*1952 + 1952 = 5856; il 8 -> 51216.
    // fixed2 = 336 + 1952 = 2288; p2(8) = 2288 + 8*5856 = 49136.
    check(bn_generate(bn_params(64, 64, 3, 17, 19)), {969, 8, 1, 2, 51216, 49136});
}

TEST_CASE("LNC=2 channel sharding: one channel tile per core") {
    // C=256: 2 tiles >= 2 cores. c_size 128 != C -> rep 1; n_partials 64 -> A(256) = 256.
    // fixed1 = 336 + 256 + 16384 + 16 = 16992; il 8 -> 213600 > budget; il 7 -> 189024.
    auto k = bn_generate(bn_params(64, 256, 1, 64, 64), 2);
    CHECK(k.info["sharding"]["mode"] == "channel");
    for (int core = 0; core < 2; ++core) check(k, {4096, 7, 1, 1, 189024, 180560}, core);
    CHECK(k.info["sharding"]["cores"][1]["channel_tiles"] == nlohmann::ordered_json({1, 2}));
}

TEST_CASE("LNC=2 batch sharding: half the batches per core, replication on the owned batch") {
    // 1 channel tile < 2 cores, B=64 >= 2: 32 batches each, rep 2, n_partials 16 -> A(64) = 64.
    // fixed1 = 336 + 64 + 16384 + 16 = 16800; il 8 -> 213408 > budget; il 7 -> 188832.
    auto k = bn_generate(bn_params(64, 64, 1, 64, 64), 2);
    CHECK(k.info["sharding"]["mode"] == "batch");
    for (int core = 0; core < 2; ++core) check(k, {4096, 7, 1, 2, 188832, 180560}, core);
    CHECK(k.info["sharding"]["cores"][1]["batches"] == nlohmann::ordered_json({32, 64}));
}

TEST_CASE("LNC=2 redundant: one channel tile and one batch, both cores compute everything") {
    // B=1: rep needs k>=2 dividing 1 -> 1. n_partials 1; units 1 -> il <= 1.
    auto k = bn_generate(bn_params(1, 64, 1, 64, 64), 2);
    CHECK(k.info["sharding"]["mode"] == "redundant");
    for (int core = 0; core < 2; ++core) check(k, {4096, 1, 1, 1, 16752 + 24576, 8528 + 24576}, core);  // A(1*4) = 16: 16752
}

TEST_CASE("LNC=2 batch sharding with an odd batch gives the cores unequal work") {
    // B=5: bpc = 3; core 0 owns [0,3), core 1 [3,5); C=64 -> rep: 2 divides 2 but not 3.
    auto k = bn_generate(bn_params(5, 64, 1, 64, 64), 2);
    CHECK(k.info["sharding"]["cores"][0]["replication"] == 1);
    CHECK(k.info["sharding"]["cores"][1]["replication"] == 2);
    CHECK(k.info["sharding"]["cores"][0]["units"] == 3);
    CHECK(k.info["sharding"]["cores"][1]["units"] == 1);
}

TEST_CASE("a shape that fits nowhere is refused with the numbers that decide it") {
    // 65536 batches: the partials column alone (A(n_partials*4) >= 256 KiB) exceeds the budget
    // at every f_tile.
    try {
        bn_generate(bn_params(65536, 128, 1, 64, 64));
        FAIL("expected a KernelError");
    } catch (const KernelError& e) {
        const std::string m = e.what();
        CHECK(m.find("spatial=4096") != std::string::npos);
        CHECK(m.find("owned batch=65536") != std::string::npos);
        CHECK(m.find("budget=211968") != std::string::npos);
    }
}

TEST_CASE("an explicit memory config replaces the search and is checked against the budget") {
    Params p = bn_params(64, 64, 1, 64, 64);
    p.memory = MemoryChoice{2048, 4, true};
    auto k = bn_generate(p);
    // f 2048: n_sp 2, n_partials 64 -> A(256) = 256; fixed1 = 336 + 256 + 8192 + 16 = 8800;
    // per slot 2*4096 + 4096 = 12288; p1(4) = 57952. fixed2 = 336 + 4096; p2(4) = 53584.
    check(k, {2048, 4, 2, 2, 57952, 53584});
    CHECK(k.info["memory_config"]["source"] == "explicit");

    p.memory = MemoryChoice{4096, 8, true};  // 213472 > 211968
    try {
        bn_generate(p);
        FAIL("expected a KernelError");
    } catch (const KernelError& e) {
        const std::string m = e.what();
        CHECK(m.find("needs 213472 bytes") != std::string::npos);
        CHECK(m.find("only 211968 are available") != std::string::npos);
    }
}

TEST_CASE("the SBUF allocator: scopes free the stack, the heap survives them") {
    SbufAllocator a(1024, 16);
    a.open_scope();
    CHECK(a.alloc(10) == 0);
    CHECK(a.alloc(16) == 16);
    CHECK(a.heap_alloc(100) == 1024 - 112);
    a.open_scope();
    CHECK(a.alloc(4) == 32);
    CHECK(a.live_bytes() == 48 + 112);
    a.close_scope();
    CHECK(a.live_bytes() == 32 + 112);
    CHECK(a.alloc(1) == 32);
    CHECK_THROWS(a.alloc(1024));  // collides with the heap
    a.heap_pop();
    a.close_scope();
    CHECK(a.live_bytes() == 0);
    CHECK_THROWS(a.close_scope());
}

// Partial memory constraints: the run config fixes some of f_tile, interleave and
// direct_x_residency; the kernel's search fills in the rest within the same budget.
namespace {

GeneratedKernel with_memory(Params p, MemoryChoice m, uint64_t usable = bnsim::test::kTestUsableSbuf) {
    p.memory = m;
    return bn_generate(p, 1, usable);
}

}  // namespace

TEST_CASE("partial memory constraints resolve as hand-worked for a table of shapes") {
    const Params seed = bn_params(64, 64, 1, 64, 64);
    SECTION("seed, interleave 2 given: the largest f_tile with two slots, 4096") {
        // p1(2) = 16864 + 2*24576 = 66016; p2(2) = 8528 + 2*24576 = 57680.
        auto k = with_memory(seed, {std::nullopt, 2, std::nullopt});
        check(k, {4096, 2, 1, 2, 66016, 57680});
        CHECK(k.info["memory_config"]["source"] == "given interleave; searched f_tile");
    }
    SECTION("seed, interleave 8 given: 4096 needs 213472 > 211968, so f_tile 2048") {
        // f 2048: fixed1 = 336 + 256 + 8192 + 16 = 8800, per slot 2*4096 + 4096 = 12288;
        // p1(8) = 107104; fixed2 = 336 + 4096 = 4432, p2(8) = 102736.
        check(with_memory(seed, {std::nullopt, 8, std::nullopt}), {2048, 8, 2, 2, 107104, 102736});
    }
    SECTION("seed, f_tile 2048 given: the deepest interleave that fits, 8") {
        auto k = with_memory(seed, {2048, std::nullopt, std::nullopt});
        check(k, {2048, 8, 2, 2, 107104, 102736});
        CHECK(k.info["memory_config"]["source"] == "given f_tile; searched interleave");
    }
    SECTION("seed, residency off given: the search's f_tile 4096 and interleave 7") {
        auto k = with_memory(seed, {std::nullopt, std::nullopt, false});
        check(k, {4096, 7, 1, 2, 188896, 180560});
        CHECK(k.info["memory_config"]["direct_x_residency"] == false);
        CHECK(k.info["memory_config"]["source"] == "given direct_x_residency; searched f_tile, interleave");
    }
    SECTION("fp32 seed, interleave 6 given: 4096 needs 16864 + 6*40960 = 262624, so 2048") {
        // f 2048: slot1 = 2*A(8192) = 16384, + dxslot 4096 = 20480; p1(6) = 8800 + 122880 = 131680;
        // p2(6) = 4432 + 6*20480 = 127312.
        check(with_memory(bn_params(64, 64, 1, 64, 64, DType::fp32), {std::nullopt, 6, std::nullopt}),
              {2048, 6, 2, 2, 131680, 127312});
    }
    SECTION("B=6 C=32, f_tile 2048 given: 4 work units cap the interleave at 4") {
        // rep 3, n_sp 2 -> n_partials 4 -> A(16) = 16; fixed1 = 336 + 16 + 8192 + 16 = 8560;
        // p1(4) = 8560 + 4*12288 = 57712; p2(4) = 4432 + 49152 = 53584.
        check(with_memory(bn_params(6, 32, 1, 64, 64), {2048, std::nullopt, std::nullopt}), {2048, 4, 2, 3, 57712, 53584});
    }
    SECTION("all three given: as an explicit config") {
        auto k = with_memory(seed, {2048, 4, true});
        check(k, {2048, 4, 2, 2, 57952, 53584});
        CHECK(k.info["memory_config"]["source"] == "explicit");
    }
}

TEST_CASE("an infeasible partial memory constraint names itself and the bytes needed and available") {
    const Params seed = bn_params(64, 64, 1, 64, 64);
    // usable 30000 -> budget 28976; f 4096 at interleave 1: p1 = 16864 + 24576 = 41440.
    try {
        with_memory(seed, {4096, std::nullopt, std::nullopt}, 30000);
        FAIL("expected a KernelError");
    } catch (const KernelError& e) {
        const std::string m = e.what();
        CHECK(m.find("memory.f_tile=4096") != std::string::npos);
        CHECK(m.find("even interleave 1 needs 41440 bytes") != std::string::npos);
        CHECK(m.find("only 28976 are available") != std::string::npos);
    }
    // 65536 batches: the partials column alone exceeds the budget, whatever f_tile.
    try {
        with_memory(bn_params(65536, 128, 1, 64, 64), {std::nullopt, 1, std::nullopt});
        FAIL("expected a KernelError");
    } catch (const KernelError& e) {
        const std::string m = e.what();
        CHECK(m.find("memory.interleave=1") != std::string::npos);
        CHECK(m.find("even f_tile 1 needs") != std::string::npos);
        CHECK(m.find("only 211968 are available") != std::string::npos);
    }
}
