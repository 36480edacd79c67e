// The declared hardware parameter table (models/hw_params.h): the preset and the table agree,
// the loader enforces kinds, allowed ranges and provenance, --set goes through the table, and
// `bnsim params --json` round-trips every value.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "models/hw_params.h"
#include "configfile/config_error.h"
#include "configfile/closest_names.h"
#include "sim/config/run_config.h"
#include "cli_run.h"
#include "test_util.h"
#include "tests/source_paths.h"

using namespace bnsim;
using namespace bnsim::test;
using json = nlohmann::json;

namespace {

// A run config on a copy of the trn2 preset with `from` replaced by `to` (once).
std::string config_with_preset_edit(const std::string& name, const std::string& from, const std::string& to) {
    std::string hw = slurp(kHw);
    const auto at = hw.find(from);
    REQUIRE(at != std::string::npos);
    hw.replace(at, from.size(), to);
    const std::string hw_path = test::write_temp_file("bnsim_test_params", name + "_hw.yaml", hw);
    return test::write_temp_file("bnsim_test_params", name + ".yaml", "hardware: " + hw_path + "\nkernel: batch_norm_bwd\nshape: {B: 64, C: 64, D: 1, H: 64, W: 64}\n");
}

// 1-based line of the first occurrence of `text` in the preset.
int preset_line(const std::string& text) {
    const std::string hw = slurp(kHw);
    const auto at = hw.find(text);
    REQUIRE(at != std::string::npos);
    return 1 + int(std::count(hw.begin(), hw.begin() + long(at), '\n'));
}



}  // namespace

TEST_CASE("every parameter in the trn2 preset is declared in the table and every declared one is in the preset") {
    // An independent walk of the YAML: a parameter is a mapping with a `value`, or a bare scalar.
    std::set<std::string> in_yaml;
    std::function<void(const YAML::Node&, const std::string&)> walk = [&](const YAML::Node& n, const std::string& path) {
        if (n.IsMap() && n["value"]) {
            in_yaml.insert(path);
            return;
        }
        if (n.IsMap()) {
            for (auto it = n.begin(); it != n.end(); ++it) {
                const std::string key = it->first.as<std::string>();
                if (path.empty() && (key == "name" || key == "costs")) continue;  // not scalar parameters
                walk(it->second, path.empty() ? key : path + "." + key);
            }
        } else {
            in_yaml.insert(path);
        }
    };
    walk(YAML::LoadFile(kHw), "");
    std::set<std::string> declared;
    for (const HwParam& p : hw_params()) declared.insert(p.name);
    for (const auto& n : in_yaml) {
        INFO("in the preset, not declared: " << n);
        CHECK(declared.count(n));
    }
    for (const auto& n : declared) {
        INFO("declared, not in the preset: " << n);
        CHECK(in_yaml.count(n));
    }
    CHECK(declared.size() == hw_params().size());  // no name declared twice
    CHECK(declared.count("dma.min_queue_occupancy_ns"));
    CHECK(declared.count("engines.dve.clock_ghz"));
}

TEST_CASE("the table reads and writes the HwConfig field it names") {
    RunConfig c = load_run_config(kDefault);
    const ParamTable& t = hw_params();
    CHECK(t.at("dma.min_queue_occupancy_ns").get(c.hw) == 800);
    CHECK(t.at("engines.dve.clock_ghz").get(c.hw) == 0.96);
    CHECK(t.at("sbuf.usable_bytes_per_partition").get(c.hw) == 212992);
    CHECK(t.at("dma.merge_contiguous_rows").get(c.hw) == 1);
    t.at("engines.dve.clock_ghz").set(c.hw, 0.5);
    CHECK(c.hw.engine(Engine::Dve).clock_ghz == 0.5);
    CHECK(c.hw.engine(Engine::Act).clock_ghz == 1.2);
    t.at("sbuf.partitions").set(c.hw, 64);
    CHECK(c.hw.sbuf.partitions == 64);
    t.at("hbm.interleave_bytes").set(c.hw, 4096);
    CHECK(c.hw.hbm.interleave_bytes == 4096u);

    CHECK_THROWS_AS(t.at("sbuf.partitions").set(c.hw, 129), std::out_of_range);
    CHECK_THROWS_AS(t.at("sbuf.partitions").set(c.hw, 64.5), std::invalid_argument);
    CHECK_THROWS_AS(t.at("dma.merge_contiguous_rows").set(c.hw, 2), std::out_of_range);
    CHECK_THROWS_AS(t.at("no.such_parameter"), std::out_of_range);
    CHECK(t.find("dma.issue") == nullptr);
    CHECK(t.is_group("dma"));
    CHECK(t.is_group("engines.act"));
    CHECK_FALSE(t.is_group("dma.issue_ns"));
    CHECK(closest_names("dma.isue_ns", t.names(), 3).front() == "dma.issue_ns");
    CHECK(t.at("dma.issue_ns").kind == ParamKind::real);
    CHECK(t.at("sbuf.partitions").kind == ParamKind::integer);
    CHECK(t.at("dma.merge_contiguous_rows").kind == ParamKind::boolean);
    CHECK(t.at("dma.issue_ns").unit == "ns");
}

TEST_CASE("every estimate of the preset carries an uncertainty range that holds its value") {
    const RunConfig c = load_run_config(kDefault);
    int estimates_in_yaml = 0;
    for (const auto& [name, prov] : c.hw.provenance) {
        INFO(name);
        CHECK((prov.estimate || !prov.source.empty()));
        if (prov.estimate) ++estimates_in_yaml;
        CHECK(prov.estimate == bool(prov.uncertainty));
    }
    CHECK(c.hw.provenance.size() == hw_params().size());
    const auto est = estimated_params(c.hw);
    CHECK(int(est.size()) == estimates_in_yaml);
    bool usable = false, occupancy = false;
    for (const auto& e : est) {
        INFO(e.param->name);
        CHECK(e.range.lo <= e.value);
        CHECK(e.value <= e.range.hi);
        CHECK(e.range.lo >= e.param->min);
        CHECK(e.range.hi <= e.param->max);
        CHECK_FALSE(e.range.lo_reason.empty());
        CHECK_FALSE(e.range.hi_reason.empty());
        if (e.param->name == "sbuf.usable_bytes_per_partition") {
            usable = true;
            CHECK(e.range.lo == 196608);
            CHECK(e.range.hi == 212992);
        }
        if (e.param->name == "dma.min_queue_occupancy_ns") {
            occupancy = true;
            CHECK(e.range.lo < 800);
            CHECK(e.range.hi > 800);
        }
    }
    CHECK(usable);
    CHECK(occupancy);
}

TEST_CASE("a preset value outside its allowed range is a config error naming file, line and key") {
    const std::string from = "partitions: {value: 128,";
    const int line = preset_line(from);
    const std::string cfg = config_with_preset_edit("range", from, "partitions: {value: 129,");
    const std::string e = config_error_of(cfg);
    CHECK(e.find("range_hw.yaml:" + std::to_string(line) + ":") != std::string::npos);
    CHECK(e.find("key 'hardware.sbuf.partitions.value': expected an integer in [1, 128], got '129'") !=
          std::string::npos);
    // the CLI: one line on stderr, exit 2
    const CliResult o = run_bnsim({"params", cfg});
    CHECK(o.exit_code == 2);
    CHECK(o.out.empty());
    CHECK(o.err.find("range_hw.yaml:" + std::to_string(line) + ":") != std::string::npos);
    CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);

    // an integer parameter refuses a fraction, a flag anything but true/false/0/1
    CHECK(config_error_of(config_with_preset_edit("frac", from, "partitions: {value: 12.5,"))
              .find("expected an integer in [1, 128], got '12.5'") != std::string::npos);
    CHECK(config_error_of(config_with_preset_edit("flag", "value: true\n    estimate: true\n    note: \"true = an engine",
                                               "value: 2\n    estimate: true\n    note: \"true = an engine"))
              .find("key 'hardware.dma.merge_contiguous_rows.value': expected true or false") != std::string::npos);
    // the cross-parameter check: usable SBUF cannot exceed the partition
    CHECK(config_error_of(kDefault, parse_overrides({"hardware.sbuf.usable_bytes_per_partition=229377"}))
              .find("expected at most sbuf.bytes_per_partition (229376)") != std::string::npos);
}

TEST_CASE("a preset estimate needs its uncertainty range and a bare number needs provenance") {
    std::string e = config_error_of(config_with_preset_edit(
        "no_range", "      low: {value: 725,", "      lo: {value: 725,"));
    CHECK(e.find("key 'hardware.dma.min_queue_occupancy_ns.uncertainty.low': missing") != std::string::npos);

    e = config_error_of(config_with_preset_edit("outside", "  min_queue_occupancy_ns:\n    value: 800",
                                             "  min_queue_occupancy_ns:\n    value: 1000"));
    CHECK(e.find("key 'hardware.dma.min_queue_occupancy_ns.value': outside its own uncertainty range") !=
          std::string::npos);

    e = config_error_of(config_with_preset_edit("bare", "partitions: {value: 128, source: \"nki/guides/architecture/trainium2_arch.rst (128 partitions)\"}",
                                             "partitions: 128"));
    CHECK(e.find("key 'hardware.sbuf.partitions': a hardware number in a preset needs") != std::string::npos);

    e = config_error_of(config_with_preset_edit(
        "missing_range", "    note: \"third-party trn2 characterization (M5): ~9.4 us fixed cost per kernel launch\"\n    uncertainty:",
        "    note: \"third-party trn2 characterization (M5): ~9.4 us fixed cost per kernel launch\"\n    uncertainty_gone:"));
    CHECK(e.find("key 'hardware.launch.fixed_ns.uncertainty': missing: an estimate needs the range") !=
          std::string::npos);
}

TEST_CASE("set hardware.X keeps the preset's provenance and may leave the uncertainty range") {
    const RunConfig c = load_run_config(
        kDefault, parse_overrides({"hardware.dma.min_queue_occupancy_ns=2000", "hardware.dma.merge_contiguous_rows=0",
                                   "hardware.engines.act.clock_ghz=1.4"}));
    CHECK(c.hw.dma.min_queue_occupancy_ns == 2000);
    CHECK(c.hw.dma.merge_contiguous_rows == 0);
    CHECK(c.hw.engine(Engine::Act).clock_ghz == 1.4);
    const ParamProvenance& p = c.hw.provenance.at("dma.min_queue_occupancy_ns");
    CHECK(p.overridden);
    CHECK(p.estimate);
    REQUIRE(p.uncertainty);
    CHECK(p.uncertainty->hi < 2000);
    CHECK(c.hw.provenance.at("engines.act.clock_ghz").source.find("trainium2_arch.rst") != std::string::npos);
    CHECK_FALSE(c.hw.provenance.at("dma.issue_ns").overridden);
    // out of the allowed range is still an error, naming the --set
    CHECK(config_error_of(kDefault, parse_overrides({"hardware.engines.act.clock_ghz=0"}))
              .find("--set hardware.engines.act.clock_ghz: key 'hardware.engines.act.clock_ghz.value': expected a "
                    "number in [0.01, 100], got '0'") != std::string::npos);
}

TEST_CASE("set hardware.X of an unknown hardware parameter is one clear error") {
    const std::string e = config_error_of(kDefault, parse_overrides({"hardware.dma.isue_ns=500"}));
    CHECK(e.find("--set hardware.dma.isue_ns=500: unknown hardware parameter 'dma.isue_ns' (closest: dma.issue_ns") !=
          std::string::npos);
    const CliResult o = run_bnsim({"params", kDefault, "--set", "hardware.engines.dve.clock=1"});
    CHECK(o.exit_code == 2);
    CHECK(o.out.empty());
    CHECK(o.err.find("unknown hardware parameter 'engines.dve.clock'") != std::string::npos);
    CHECK(o.err.find("engines.dve.clock_ghz") != std::string::npos);
    CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
    // a group and the cost table remain settable as a whole
    CHECK(config_error_of(kDefault, parse_overrides({"hardware.engines.pe={clock_ghz: 2.0, min_ii_cycles: 64, result_latency_cycles: 64}"})).empty());
}

TEST_CASE("bnsim params --json lists every parameter and its values round-trip through --set") {
    const CliResult first = run_bnsim({"params", kDefault, "--json"});
    REQUIRE(first.exit_code == 0);
    const json j = json::parse(first.out);
    REQUIRE(j["params"].size() == hw_params().size());
    std::vector<std::string> second_args = {"params", kDefault, "--json"};
    for (const auto& p : j["params"]) {
        for (const char* k : {"name", "value", "unit", "kind", "allowed", "source", "estimate", "uncertainty", "note"})
            CHECK(p.contains(k));
        CHECK((p["source"].is_string() || p["source"].is_null()));
        CHECK(p["estimate"].get<bool>() == p["uncertainty"].is_array());
        CHECK_FALSE(p["overridden"].get<bool>());
        // The value again, through --set, exactly as printed.
        second_args.push_back("--set");
        second_args.push_back("hardware." + p["name"].get<std::string>() + "=" + p["value"].dump());
    }
    const CliResult second = run_bnsim(second_args);
    INFO(second.err);
    REQUIRE(second.exit_code == 0);
    const json k = json::parse(second.out);
    REQUIRE(k["params"].size() == j["params"].size());
    for (size_t i = 0; i < k["params"].size(); ++i) {
        INFO(k["params"][i]["name"]);
        CHECK(k["params"][i]["value"] == j["params"][i]["value"]);
        CHECK(k["params"][i]["overridden"].get<bool>());
        CHECK(k["params"][i]["source"] == j["params"][i]["source"]);
    }
    // and the JSON values are the HwConfig's
    const RunConfig c = load_run_config(kDefault);
    for (const auto& p : j["params"]) {
        INFO(p["name"]);
        const double v = p["value"].is_boolean() ? double(p["value"].get<bool>()) : p["value"].get<double>();
        CHECK(v == hw_params().at(p["name"].get<std::string>()).get(c.hw));
    }
}

TEST_CASE("bnsim params prints an aligned table with every parameter") {
    const CliResult o = run_bnsim({"params", kDefault});
    REQUIRE(o.exit_code == 0);
    std::istringstream in(o.out);
    std::string title, header;
    std::getline(in, title);
    std::getline(in, header);
    CHECK(title.find("hardware trn2") != std::string::npos);
    CHECK(title.find(std::to_string(hw_params().size()) + " parameters") != std::string::npos);
    const auto value_col = header.find("value");
    const auto prov_col = header.find("provenance");
    REQUIRE(value_col != std::string::npos);
    size_t rows = 0;
    for (std::string line; std::getline(in, line) && line.rfind("provenance  ", 0) != 0; ++rows) {
        INFO(line);
        CHECK(line[value_col - 1] == ' ');
        CHECK(line[value_col] != ' ');
        CHECK(line[prov_col] != ' ');
    }
    CHECK(rows == hw_params().size());  // then the provenance line ends the report
    CHECK(o.out.find("estimate [196608, 212992]") != std::string::npos);
}
