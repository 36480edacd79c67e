// The kernel registry: every kernel is found by name, each entry's declared summary fields are
// exactly the fields its generated kernel reports, and the decision axes and auto overrides of
// batch_norm_bwd are the run-config keys a sweep varies.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <set>

#include "kernels/kernel_entry.h"
#include "sim/config/run_config.h"
#include "cli_run.h"
#include "tests/source_paths.h"

using namespace bnsim;

namespace {
}

TEST_CASE("registry: every kernel name is found and unknown names are not") {
    const auto names = kernel_names();
    CHECK(names == std::vector<std::string>{"batch_norm_bwd", "dma_copy", "activation", "vector_op", "vector_add", "nki", "trace"});
    for (const auto& n : names) {
        const KernelEntry* e = find_kernel(n);
        REQUIRE(e);
        CHECK(e->name == n);
        CHECK(e->parse);
        CHECK(e->generate);
        CHECK(!e->description.empty());
    }
    CHECK(find_kernel("no_such_kernel") == nullptr);
}

TEST_CASE("registry: batch_norm_bwd declares its memory decisions and the auto override") {
    const KernelEntry* e = find_kernel("batch_norm_bwd");
    REQUIRE(e);
    REQUIRE(e->decision_axes.size() == 3);
    CHECK(e->decision_axes[0].key == "memory.f_tile");
    CHECK(e->decision_axes[0].kind == "integer");
    CHECK(e->decision_axes[1].key == "memory.interleave");
    CHECK(e->decision_axes[1].kind == "integer");
    CHECK(e->decision_axes[2].key == "memory.direct_x_residency");
    CHECK(e->decision_axes[2].kind == "boolean");
    CHECK(e->auto_overrides == Overrides{{"memory", "auto"}});
}

TEST_CASE("registry: a generated kernel reports exactly the summary fields its entry declares") {
    for (const char* cfg_file : {"default.yaml", "calibration/m1_dma_copy.yaml", "calibration/m2_activation_exp_w64.yaml",
                                 "calibration/m3_vector_copy_w128.yaml", "calibration/m4_vector_add_free2.yaml"}) {
        INFO(cfg_file);
        const RunConfig cfg = load_run_config(kConfigs + cfg_file);
        const GeneratedKernel k = cfg.generate();
        std::vector<std::string> declared, reported;
        for (const auto& f : cfg.entry->summary_fields) {
            declared.push_back(f.name);
            CHECK(!f.description.empty());
        }
        for (const auto& f : k.summary.fields()) reported.push_back(f.first);
        CHECK(declared == reported);
    }
}

TEST_CASE("registry: batch_norm_bwd's summary says whether the memory config was searched or given") {
    RunConfig searched = load_run_config(kConfigs + "default.yaml");
    const GeneratedKernel a = searched.generate();
    REQUIRE(a.summary.find("memory_source"));
    CHECK(std::get<std::string>(*a.summary.find("memory_source")) == "search");
    const auto f_tile = std::get<int64_t>(*a.summary.find("f_tile"));
    const auto il = std::get<int64_t>(*a.summary.find("interleave"));

    // Giving the searched choice explicitly reproduces it, now marked "given".
    RunConfig given = load_run_config(
        kConfigs + "default.yaml",
        {{"memory", "{f_tile: " + std::to_string(f_tile) + ", interleave: " + std::to_string(il) + "}"}});
    const GeneratedKernel b = given.generate();
    CHECK(std::get<std::string>(*b.summary.find("memory_source")) == "given");
    CHECK(std::get<int64_t>(*b.summary.find("f_tile")) == f_tile);
    CHECK(std::get<int64_t>(*b.summary.find("interleave")) == il);
    CHECK(b.trace.size() == a.trace.size());
}

TEST_CASE("registry: run --json and trace --json carry the kernel's summary") {
    for (const char* cmd : {"run", "trace"}) {
        INFO(cmd);
        const test::CliResult r = test::run_bnsim({cmd, kConfigs + "default.yaml", "--json"});
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        const auto j = nlohmann::json::parse(r.out);
        REQUIRE(j.contains("kernel_summary"));
        const auto& s = j["kernel_summary"];
        CHECK(s["memory_source"] == "search");
        CHECK(s["direct_x_residency"].is_boolean());
        for (const char* f : {"f_tile", "interleave", "replication"}) CHECK(s[f].is_number_integer());
        CHECK(s["f_tile"] == j["memory_config"]["f_tile"]);
    }
}
