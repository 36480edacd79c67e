// run_simulations: a request asked for twice in one batch is run once and answered twice, each
// answer in its request's place.
#include <catch2/catch.hpp>

#include <string>

#include "sim/runner/simulation_runner.h"

using namespace bnsim;

TEST_CASE("simulation runner: a repeated request gets its twin's outcome, in its own place") {
    const std::string cfg = std::string(BNSIM_SOURCE_DIR) + "/configs/calibration/m1_dma_copy.yaml";
    SimRequest slow, fast;
    slow.config = fast.config = cfg;
    slow.want = fast.want = SimRequest::Want::latency;
    slow.sets = {{"hardware.hbm.latency_ns", "400"}};
    fast.sets = {{"hardware.hbm.latency_ns", "100"}};
    const auto out = run_simulations({slow, fast, slow, fast, slow}, 2, 60);
    REQUIRE(out.size() == 5);
    for (const auto& o : out) REQUIRE(o.ok);
    CHECK(out[0].value > out[1].value);  // 300 ns more memory latency
    CHECK(out[2].value == out[0].value);
    CHECK(out[4].value == out[0].value);
    CHECK(out[3].value == out[1].value);
}
