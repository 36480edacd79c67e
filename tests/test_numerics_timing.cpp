// Numerics in the order the timing simulation runs the instructions (SimOptions::observer).
#include <catch2/catch.hpp>

#include "kernels/batch_norm_bwd/params.h"
#include "sim/config/run_config.h"
#include "numerics_test_util.h"

using namespace bnsim;
using namespace bnsim::num;
using namespace bnsim::bn;

using test::timing_runner;

TEST_CASE("timing order: batch-sharded LNC=2 kernel matches the oracle with no hazards", "[numerics][timing]") {
    RunConfig cfg = test::numerics_config(test::small(5, 64, {{"lnc", "2"}, {"fuse_relu", "true"}}));
    GeneratedKernel k = cfg.generate();
    auto in = generate_inputs(kernel_params<bn::Params>(cfg.kernel_params), kernel_params<bn::Params>(cfg.kernel_params).inputs);
    ValidateResult r = validate_batch_norm_bwd(k.trace, kernel_params<bn::Params>(cfg.kernel_params), in, test::validate_options(cfg), timing_runner(cfg));
    INFO((r.hazards.empty() ? "" : r.hazards[0].text));
    CHECK(r.hazards.empty());
    CHECK(r.pass);
    // The same numbers as program order: a hazard-free execution is order-independent.
    ValidateResult s = validate_batch_norm_bwd(k.trace, kernel_params<bn::Params>(cfg.kernel_params), in, test::validate_options(cfg), run_sequential);
    CHECK(r.out_dgamma == s.out_dgamma);
    CHECK(r.out_dbeta == s.out_dbeta);
    CHECK(r.out_dx_bytes == s.out_dx_bytes);
}

TEST_CASE("timing order: a dropped WAR edge lets the scheduler overwrite a live slot", "[numerics][timing][hazard]") {
    RunConfig cfg = test::numerics_config({{"shape.B", "8"}, {"shape.C", "64"}, {"shape.H", "16"}, {"shape.W", "16"},
                                           {"memory", "{f_tile: 64, interleave: 2}"}});
    GeneratedKernel k = cfg.generate();
    Trace& t = k.trace;
    // Drop, for every phase-1 dy load of tile i+interleave, the WAR edges to tile i's readers.
    std::vector<uint32_t> changed;
    for (auto& in : t.instructions()) {
        if (in.tag.phase != 1 || std::string(in.tag.what) != "load dy" || in.tag.unit < 2) continue;
        const Region slot = in.dsts.at(0).region;
        std::vector<uint32_t> kept;
        for (uint32_t d : in.deps) {
            bool reads = false, writes = false;
            for (const auto& r : t.instructions()[d].reads()) reads = reads || r.overlaps(slot);
            for (const auto& w : t.instructions()[d].writes()) writes = writes || w.overlaps(slot);
            if (!(reads && !writes)) kept.push_back(d);
        }
        if (kept.size() != in.deps.size()) changed.push_back(in.id);
        in.deps = kept;
    }
    REQUIRE(!changed.empty());
    auto in = generate_inputs(kernel_params<bn::Params>(cfg.kernel_params), kernel_params<bn::Params>(cfg.kernel_params).inputs);
    ValidateResult r = validate_batch_norm_bwd(t, kernel_params<bn::Params>(cfg.kernel_params), in, test::validate_options(cfg), timing_runner(cfg));
    REQUIRE_FALSE(r.hazards.empty());
    CHECK(r.hazards[0].kind == "WAR");
    WARN("first hazard under the timing simulation: " << r.hazards[0].text);
    CHECK_FALSE(r.pass);
}
