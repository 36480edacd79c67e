// Run-config loading: presets, --set overrides, and errors that name file, line and key.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>

#include <nlohmann/json.hpp>

#include <yaml-cpp/yaml.h>

#include "kernels/batch_norm_bwd/params.h"
#include "configfile/config_error.h"
#include "models/hw_params.h"
#include "sim/config/run_config.h"
#include "sim/simulate/simulate.h"
#include "test_util.h"
#include "tests/source_paths.h"

using namespace bnsim;
using bnsim::test::config_error_of;

namespace {

std::string seed(const std::string& extra = "") {
    return "hardware: " + kHw + "\nkernel: batch_norm_bwd\nshape: {B: 64, C: 64, D: 1, H: 64, W: 64}\n" + extra;
}


}  // namespace

TEST_CASE("the default config loads with the trn2 preset") {
    RunConfig c = load_run_config(std::string(BNSIM_SOURCE_DIR) + "/configs/default.yaml");
    CHECK(c.kernel == "batch_norm_bwd");
    CHECK(c.hw.name == "trn2");
    CHECK(c.hw.sbuf.usable_bytes_per_partition == 212992);
    CHECK(c.hw.dma.engines_per_core == 16);
    CHECK(kernel_params<bn::Params>(c.kernel_params).shape.elements() == 64ll * 64 * 4096);
    CHECK(!kernel_params<bn::Params>(c.kernel_params).memory);
}

TEST_CASE("set overrides apply to run and hardware keys") {
    auto path = test::write_temp_file("bnsim_test_config", "ok.yaml", seed());
    RunConfig c = load_run_config(path, parse_overrides({"shape.C=200", "hardware.sbuf.usable_bytes_per_partition=196608",
                                                         "memory={f_tile: 2048, interleave: 4}", "lnc=2"}));
    CHECK(kernel_params<bn::Params>(c.kernel_params).shape.C == 200);
    CHECK(c.hw.sbuf.usable_bytes_per_partition == 196608);
    CHECK(kernel_params<bn::Params>(c.kernel_params).memory->f_tile == 2048);
    CHECK(!kernel_params<bn::Params>(c.kernel_params).memory->direct_x_residency);  // not given: left to the kernel (on)
    CHECK(c.lnc == 2);
}

TEST_CASE("set of one memory key on memory auto fixes that key only") {
    auto path = test::write_temp_file("bnsim_test_config", "auto.yaml", seed());
    RunConfig c = load_run_config(path, parse_overrides({"memory=auto", "memory.interleave=4"}));
    const auto& p = kernel_params<bn::Params>(c.kernel_params);
    REQUIRE(p.memory);
    CHECK(p.memory->interleave == 4);
    CHECK(!p.memory->f_tile);
    CHECK(c.generate().info["memory_config"]["f_tile"] == 4096);
    CHECK(c.generate().info["memory_config"]["source"] == "given interleave; searched f_tile");
}

TEST_CASE("an unknown key names the file, line and key") {
    auto path = test::write_temp_file("bnsim_test_config", "typo.yaml", seed("fuse_rleu: true\n"));
    auto e = config_error_of(path);
    CHECK(e.find(path + ":4:") != std::string::npos);
    CHECK(e.find("key 'fuse_rleu': unknown key") != std::string::npos);
}

TEST_CASE("a wrong type or out-of-range value names the key and what was expected") {
    auto e = config_error_of(test::write_temp_file("bnsim_test_config", "type.yaml", seed("dtype: float16\n")));
    CHECK(e.find(":4:") != std::string::npos);
    CHECK(e.find("key 'dtype': expected one of bfloat16 | float32, got 'float16'") != std::string::npos);

    e = config_error_of(test::write_temp_file("bnsim_test_config", "range.yaml", seed("lnc: 3\n")));
    CHECK(e.find("key 'lnc': expected an integer in [1, 2], got '3'") != std::string::npos);

    e = config_error_of(test::write_temp_file("bnsim_test_config", "nested.yaml", seed("memory: {f_tile: 2048, interleave: 9}\n")));
    CHECK(e.find("key 'memory.interleave': expected an integer in [1, 8]") != std::string::npos);

    e = config_error_of(test::write_temp_file("bnsim_test_config", "set_map.yaml", seed()), parse_overrides({"memory={f_tile: 0, interleave: 1}"}));
    CHECK(e.find("--set memory: key 'memory.f_tile': expected an integer in [1, 8192]") != std::string::npos);

    e = config_error_of(test::write_temp_file("bnsim_test_config", "shape.yaml", seed()), parse_overrides({"shape.C=abc"}));
    CHECK(e.find("--set shape.C") != std::string::npos);
    CHECK(e.find("expected an integer") != std::string::npos);
}

TEST_CASE("hardware errors name the preset file and the hardware key") {
    auto e = config_error_of(test::write_temp_file("bnsim_test_config", "hw.yaml", seed()), parse_overrides({"hardware.dma.engines_per_core=0"}));
    CHECK(e.find("--set hardware.dma.engines_per_core") != std::string::npos);

    auto bad_hw = test::write_temp_file("bnsim_test_config", "bad_hw.yaml", "name: x\nsbuf: {partitions: {value: 128}}\n");
    e = config_error_of(test::write_temp_file("bnsim_test_config", "uses_bad_hw.yaml", "hardware: " + bad_hw +
                                                      "\nkernel: batch_norm_bwd\nshape: {B: 1, C: 1, H: 1, W: 1}\n"));
    CHECK(e.find(bad_hw + ":2") != std::string::npos);
    CHECK(e.find("needs a source or 'estimate: true'") != std::string::npos);
}

TEST_CASE("a missing hardware number or list is a clear error and not a crash") {
    YAML::Node hw = YAML::LoadFile(kHw);
    hw["hbm"].remove("latency_ns");
    auto hw_path = test::write_temp_file("bnsim_test_config", "hw_missing.yaml", YAML::Dump(hw));
    auto e = config_error_of(test::write_temp_file("bnsim_test_config", "uses_hw_missing.yaml", "hardware: " + hw_path +
                                                               "\nkernel: batch_norm_bwd\nshape: {B: 1, C: 1, H: 1, W: 1}\n"));
    CHECK(e.find(hw_path) != std::string::npos);
    CHECK(e.find("key 'hardware.hbm.latency_ns': missing (a number is required)") != std::string::npos);

    hw = YAML::LoadFile(kHw);
    hw.remove("costs");
    hw_path = test::write_temp_file("bnsim_test_config", "hw_no_costs.yaml", YAML::Dump(hw));
    e = config_error_of(test::write_temp_file("bnsim_test_config", "uses_hw_no_costs.yaml", "hardware: " + hw_path +
                                                           "\nkernel: batch_norm_bwd\nshape: {B: 1, C: 1, H: 1, W: 1}\n"));
    CHECK(e.find("key 'hardware.costs': expected a non-empty list of cost rows, got nothing") != std::string::npos);
}

TEST_CASE("missing files, YAML syntax errors and bad --set syntax are clear errors") {
    CHECK(config_error_of("/nonexistent/run.yaml").find("/nonexistent/run.yaml: cannot open") != std::string::npos);
    auto e = config_error_of(test::write_temp_file("bnsim_test_config", "syntax.yaml", "kernel: [batch_norm_bwd\n"));
    CHECK(e.find("YAML syntax error") != std::string::npos);
    CHECK_THROWS_AS(parse_overrides({"shape.C"}), ConfigError);
    e = config_error_of(test::write_temp_file("bnsim_test_config", "preset.yaml", "hardware: nosuchpreset\nkernel: batch_norm_bwd\n"));
    CHECK(e.find("preset 'nosuchpreset' could not be loaded") != std::string::npos);
}

TEST_CASE("every number in the trn2 preset carries a source or says it is an estimate") {
    YAML::Node hw = YAML::LoadFile(kHw);
    int numbers = 0;
    std::function<void(const YAML::Node&, const std::string&)> walk = [&](const YAML::Node& n, const std::string& path) {
        if (n.IsMap() && n["value"]) {
            ++numbers;
            INFO(path);
            CHECK((n["source"] || (n["estimate"] && n["estimate"].as<bool>())));
            return;
        }
        if (n.IsMap())
            for (auto it = n.begin(); it != n.end(); ++it) walk(it->second, path + "." + it->first.as<std::string>());
        else if (n.IsSequence() && path.find("costs") != std::string::npos)
            for (size_t i = 0; i < n.size(); ++i) {
                INFO(path << "[" << i << "]");
                CHECK((n[i]["source"] || (n[i]["estimate"] && n[i]["uncertainty"])));
            }
        else if (n.IsScalar() && path != ".name") {
            double d;
            INFO(path);
            CHECK_FALSE(YAML::convert<double>::decode(n, d));  // no bare numbers in the preset
        }
    };
    walk(hw, "");
    CHECK(numbers > 30);
}

TEST_CASE("a hardware preset with fewer DMA queues than the trace uses is a config error") {
    RunConfig c = load_run_config(std::string(BNSIM_SOURCE_DIR) + "/configs/default.yaml",
                                  parse_overrides({"hardware.dma.queues_per_engine=2"}));
    GeneratedKernel k = c.generate();
    try {
        simulate(c.hw, k.trace, SimOptions{});
        FAIL("expected a ConfigError");
    } catch (const ConfigError& e) {
        CHECK(std::string(e.what()).find("key 'hardware.dma.queues_per_engine': 2 is too few") != std::string::npos);
    }
}

TEST_CASE("parameters set by --set load as the preset edited to those values") {
    // The loader sets a parameter override on the preset it parsed without overrides (a fit's
    // every evaluation does); the result must be what parsing the edited preset gives.
    std::ifstream in(kHw);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto edit = [&](const std::string& from, const std::string& to) {
        const auto at = text.find(from);
        REQUIRE(at != std::string::npos);
        text.replace(at, from.size(), to);
    };
    edit("  trigger_cycles:\n    value: 64\n", "  trigger_cycles:\n    value: 100\n");
    edit("  latency_ns:\n    value: 120\n", "  latency_ns:\n    value: 300.5\n");
    const auto edited = test::write_temp_file("bnsim_test_config", "edited_hw.yaml", text);
    const auto body = [](const std::string& hw) {
        return "hardware: " + hw + "\nkernel: batch_norm_bwd\nshape: {B: 64, C: 64, D: 1, H: 64, W: 64}\n";
    };
    const RunConfig by_file = load_run_config(test::write_temp_file("bnsim_test_config", "edited.yaml", body(edited)));
    const auto sets = parse_overrides({"hardware.dma.trigger_cycles=100", "hardware.hbm.latency_ns=300.5"});
    const auto cfg = test::write_temp_file("bnsim_test_config", "preset.yaml", body(kHw));
    for (int round = 0; round < 2; ++round) {  // made, then taken from the loader's recent results
        const RunConfig by_set = load_run_config(cfg, sets);
        CHECK(by_set.hw.dma.trigger_cycles == 100);
        CHECK(by_set.hw.hbm.latency_ns == 300.5);
        for (const HwParam& p : hw_params()) {
            INFO(p.name);
            CHECK(p.get(by_set.hw) == p.get(by_file.hw));
            const ParamProvenance& a = by_set.hw.provenance.at(p.name);
            const ParamProvenance& b = by_file.hw.provenance.at(p.name);
            CHECK(a.source == b.source);
            CHECK(a.estimate == b.estimate);
            CHECK(a.note == b.note);
            CHECK(a.uncertainty.has_value() == b.uncertainty.has_value());
            CHECK(a.overridden == (p.name == "dma.trigger_cycles" || p.name == "hbm.latency_ns"));
            CHECK_FALSE(b.overridden);
        }
        CHECK(by_set.hw.costs.size() == by_file.hw.costs.size());
        // Provenance hashes the same hardware tree.
        const auto hw_of = [](const RunConfig& c) { return nlohmann::json::parse(c.resolved_json()).at("hardware"); };
        CHECK(hw_of(by_set) == hw_of(by_file));
    }
}

TEST_CASE("a run config loaded again with other hardware values equals one loaded afresh") {
    // The second load of a file with the same run overrides reuses what the first parsed and
    // loads only the hardware; the result must be the long way's, field by field.
    auto path = test::write_temp_file("bnsim_test_config", "kept.yaml", seed("dtype: float32\n"));
    const RunConfig first = load_run_config(path, parse_overrides({"shape.C=96", "hardware.hbm.latency_ns=150"}));
    const RunConfig kept = load_run_config(path, parse_overrides({"shape.C=96", "hardware.hbm.latency_ns=200"}));
    // The same overrides spelled so that no earlier load has them: parsed afresh.
    const RunConfig fresh =
        load_run_config(path, parse_overrides({"shape.C=1", "shape.C=96", "hardware.hbm.latency_ns=200"}));
    CHECK(first.hw.hbm.latency_ns == 150);
    CHECK(kept.hw.hbm.latency_ns == 200);
    CHECK(kept.resolved_json() == fresh.resolved_json());
    CHECK(kept.resolved_json() != first.resolved_json());
    CHECK(kept.config_json == fresh.config_json);
    CHECK(kept.hw_file == fresh.hw_file);
    CHECK(kept.kernel == fresh.kernel);
    CHECK(kept.entry == fresh.entry);
    CHECK(kept.lnc == fresh.lnc);
    CHECK(kept.target() == fresh.target());
    const auto& kp = kernel_params<bn::Params>(kept.kernel_params);
    CHECK(kp.shape.C == 96);
    CHECK(kp.dtype == kernel_params<bn::Params>(fresh.kernel_params).dtype);
    CHECK(kept.generate().trace.size() == fresh.generate().trace.size());
}

TEST_CASE("a run config loaded before is checked again against hardware of another target") {
    // The kernel's section was checked for 128 partitions; with 64 it must be refused, not reused.
    auto path = test::write_temp_file("bnsim_test_config", "target.yaml", seed());
    CHECK(load_run_config(path).target().partitions == 128);
    std::string e;
    try {
        load_run_config(path, parse_overrides({"hardware.sbuf.partitions=64"}));
    } catch (const KernelError& k) {
        e = k.what();
    }
    CHECK(e.find("the hardware has 64 partitions; expected at least 128") != std::string::npos);
    CHECK(load_run_config(path, parse_overrides({"hardware.sbuf.usable_bytes_per_partition=196608"})).target().sbuf_usable_bytes ==
          196608);
}
