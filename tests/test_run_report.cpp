// The typed run report: what to_json writes, run_report_from_json reads back field for field
// (the runner's children and the sweep's results files travel as that JSON), and a report that
// is not one is refused naming the field. Priced by estimate(), so one process can build many.
#include <catch2/catch.hpp>

#include "sim/config/run_config.h"
#include "sim/report/run_report.h"
#include "sim/simulate/simulate.h"
#include "tests/source_paths.h"
#include "tests/test_util.h"

using namespace bnsim;

namespace {

RunReport report_of(const RunConfig& cfg) {
    const GeneratedKernel k = cfg.generate();
    RunReport r = build_run_report(cfg, k, estimate(cfg.hw, k.trace));
    r.estimate = true;
    return r;
}

}  // namespace

TEST_CASE("run report: JSON read back gives the same report (LNC 1, LNC 2 with the link, an NKI kernel)") {
    const RunConfig one = test::default_config();
    const RunConfig pair = test::default_config({{"lnc", "2"}, {"shape.C", "64"}});  // batch sharding: link used
    const RunConfig nki = load_run_config(kConfigs + "nki/transpose.yaml", {});
    for (const RunConfig* cfg : {&one, &pair, &nki}) {
        const RunReport r = report_of(*cfg);
        const nlohmann::ordered_json j = to_json(r);
        const RunReport back = run_report_from_json(nlohmann::ordered_json::parse(j.dump()));
        CHECK(to_json(back).dump() == j.dump());
        // The fields a reader uses, compared directly (not only through JSON).
        CHECK(back.latency_ns == r.latency_ns);
        CHECK(back.estimate);
        REQUIRE(back.phases.size() == r.phases.size());
        for (size_t i = 0; i < r.phases.size(); ++i) CHECK(back.phases[i].binding.unit == r.phases[i].binding.unit);
        REQUIRE(back.engines.size() == r.engines.size());
        for (size_t i = 0; i < r.engines.size(); ++i) CHECK(back.engines[i].engine == r.engines[i].engine);
        CHECK(back.kernel_summary.fields().size() == r.kernel_summary.fields().size());
    }
    const RunReport p = report_of(pair);
    REQUIRE(p.link);
    CHECK(p.link->transfers == 2);
    for (const auto& e : p.engines) CHECK(e.cores.size() == 2);
    CHECK_FALSE(report_of(one).link);
    CHECK_FALSE(report_of(nki).source_lines.empty());
    CHECK(report_of(one).kernel_fields.contains("memory_config"));  // the kernel's own, kept whole
}

TEST_CASE("run report: a report missing a field or with one of the wrong type is refused, naming it") {
    const nlohmann::ordered_json good = nlohmann::ordered_json::parse(to_json(report_of(test::default_config())).dump());
    nlohmann::ordered_json j = good;
    j.erase("latency_ns");
    CHECK_THROWS_WITH(run_report_from_json(j), "run report: latency_ns: expected a number");
    j = good;
    j["phases"][0]["binding"]["unit"] = 3;
    CHECK_THROWS_WITH(run_report_from_json(j), "run report: phases[].binding.unit: expected a string");
    j = good;
    j["engines"]["dve"]["instructions"] = -1;
    CHECK_THROWS_WITH(run_report_from_json(j), "run report: engines.dve.instructions: expected a count");
    j = good;
    j["engines"]["tpu"] = j["engines"]["dve"];
    CHECK_THROWS_WITH(run_report_from_json(j), Catch::Contains("engines.tpu: expected an engine name"));
    j = good;
    j["mode"] = "simulation";
    CHECK_THROWS_WITH(run_report_from_json(j), "run report: mode: expected \"estimate\"");
    CHECK_THROWS_WITH(run_report_from_json(nlohmann::ordered_json::array()), "run report: expected an object");
}
