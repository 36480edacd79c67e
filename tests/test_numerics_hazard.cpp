// Dropping one dependency edge: the hazard checker names the race and the result goes wrong.
#include <catch2/catch.hpp>

#include "kernels/batch_norm_bwd/params.h"
#include "sim/config/run_config.h"
#include "numerics_test_util.h"

using namespace bnsim;
using namespace bnsim::num;
using namespace bnsim::bn;

namespace {

// Phase-1 instruction of `unit` tagged `what`, on core 0.
Instruction& find_mutable(Trace& t, int unit, const std::string& what) {
    for (auto& in : t.instructions())
        if (in.tag.phase == 1 && in.tag.unit == unit && what == in.tag.what) return in;
    FAIL("no instruction '" << what << "' for unit " << unit);
    throw;
}

}  // namespace

TEST_CASE("hazard: dropping the WAR edge of tile i+interleave's load is caught", "[numerics][hazard]") {
    RunConfig cfg = test::numerics_config({{"shape.B", "8"}, {"shape.C", "64"}, {"shape.H", "16"}, {"shape.W", "16"},
                                           {"memory", "{f_tile: 64, interleave: 2}"}});
    GeneratedKernel k = cfg.generate();
    const int il = k.info["memory_config"]["interleave"];
    REQUIRE(il == 2);
    Trace& t = k.trace;
    // Tile i+interleave's dy load reuses tile i's slot: it must wait for tile i's readers.
    Instruction& load = find_mutable(t, il, "load dy");
    const Region slot = load.dsts.at(0).region;
    std::vector<uint32_t> kept, dropped;
    for (uint32_t d : load.deps) {
        bool reads_slot = false, writes_slot = false;
        for (const auto& r : t.instructions()[d].reads()) reads_slot = reads_slot || r.overlaps(slot);
        for (const auto& w : t.instructions()[d].writes()) writes_slot = writes_slot || w.overlaps(slot);
        (reads_slot && !writes_slot ? dropped : kept).push_back(d);
    }
    REQUIRE(!dropped.empty());  // the WAR edges: tile 0's dbeta accumulate, dy*x, direct_x
    load.deps = kept;

    auto inputs = generate_inputs(kernel_params<bn::Params>(cfg.kernel_params), kernel_params<bn::Params>(cfg.kernel_params).inputs);
    const ValidateOptions vo = test::validate_options(cfg);

    // In program order nothing races: the hazard is an ordering problem, not a data problem.
    ValidateResult seq = validate_batch_norm_bwd(t, kernel_params<bn::Params>(cfg.kernel_params), inputs, vo, run_sequential);
    CHECK(seq.hazards.empty());
    CHECK(seq.pass);

    // Run as soon as the (now incomplete) dependencies allow: the load overtakes tile 0's readers.
    ValidateResult r = validate_batch_norm_bwd(t, kernel_params<bn::Params>(cfg.kernel_params), inputs, vo, run_dataflow);
    REQUIRE_FALSE(r.hazards.empty());
    bool named = false;
    for (const auto& h : r.hazards) {
        if (h.instr == load.id && h.kind == "WAR" &&
            std::find(dropped.begin(), dropped.end(), h.other) != dropped.end()) {
            named = true;
            CHECK(h.region.overlaps(slot));
            CHECK_THAT(h.text, Catch::Contains("load dy") && Catch::Contains("WAR") && Catch::Contains("sbuf core0"));
            WARN("hazard: " << h.text);
        }
    }
    CHECK(named);
    // And tile 0 was computed from tile 2's dy: the result is wrong.
    CHECK_FALSE(r.pass);
    CHECK_FALSE(r.dx.kernel_pass);
    CHECK(r.dx.kernel.max_abs_err > 0.1);
}

TEST_CASE("hazard: the checker sees a dropped cross-core exchange edge", "[numerics][hazard][lnc]") {
    // The per-core derivation has no edge for a sendrecv's read of the peer's column; the checker
    // adds it. A run that lets core 0 exchange before core 1 has its partial sum is a RAW hazard.
    RunConfig cfg = test::numerics_config(test::small(4, 64, {{"lnc", "2"}}));
    GeneratedKernel k = cfg.generate();
    HazardChecker hz(k.trace);
    // Program order across cores without the rendezvous: core 0 runs entirely first.
    double t = 0;
    for (const auto& in : k.trace.instructions()) {
        hz.on_start(in, t);
        hz.on_finish(in, t + 1);
        t += 2;
    }
    auto hs = hz.check();
    REQUIRE_FALSE(hs.empty());
    bool cross = false;
    for (const auto& h : hs)
        if (h.kind == "RAW" && k.trace.instructions()[h.instr].opcode == Opcode::SendRecv) cross = true;
    CHECK(cross);
}
