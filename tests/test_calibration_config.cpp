// Calibration data and configs: the measurements file parses and every row has a source, and
// mistakes in a calibration run config are errors naming file, line and key.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>

#include "sim/calibration/measurements.h"
#include "configfile/config_error.h"
#include "sim/config/run_config.h"
#include "tests/source_paths.h"
#include "tests/test_util.h"

using namespace bnsim;

namespace {

std::string config_error(const std::string& body) {
    const std::string path = test::write_temp_file("bnsim_test_calibration", "run.yaml", "hardware: " + kHw + "\n" + body);
    try {
        load_run_config(path);
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "";
}

std::string measurements_error(const std::string& body) {
    // Configs are relative to the measurements file: point at the real ones.
    const std::string path = test::write_temp_file("bnsim_test_calibration", "measurements.yaml", body);
    try {
        load_measurements(path);
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("the measurements file parses, every row has a source and a runnable config") {
    const MeasurementSet s = load_measurements(kCal + "measurements.yaml");
    CHECK(s.tolerance_pct == 15);
    REQUIRE(s.rows.size() >= 20);
    std::set<std::string> families;
    for (const auto& m : s.rows) {
        INFO(m.id);
        CHECK(!m.source.empty());
        CHECK(!m.uncertainty.empty());
        CHECK(m.measured > 0);
        CHECK(std::filesystem::is_regular_file(m.config));
        families.insert(m.id.substr(0, 2));
        // Third-party rows are the ones not from an AWS document.
        CHECK(m.third_party == (m.source.rfind("AWS", 0) != 0));
        if (m.metric != "hw_parameter") CHECK_NOTHROW(load_run_config(m.config));
    }
    for (const char* f : {"M1", "M2", "M3", "M4", "M5", "M6", "M7"}) CHECK(families.count(f));
    // M4's two published rows, as data.
    auto find = [&](const std::string& id) {
        for (const auto& m : s.rows)
            if (m.id == id) return m;
        FAIL("no row " << id);
        return Measurement{};
    };
    CHECK(find("M4.free2").measured == 186000);
    CHECK(find("M4.free200").measured == 15000);
    CHECK(find("M4.free2").metric == "latency_ns");
    CHECK(find("M1").measured == 1416);
    CHECK(find("M2.read_accumulator").baseline);
}

TEST_CASE("measurement rows are checked: unknown keys, metrics, missing sources and configs") {
    const std::string ok_row = "  - {id: A, config: " + kCal + "m1_dma_copy.yaml, metric: dma_transfer_ns, measured: 1416, "
                               "source: \"AWS, somewhere: a figure\", third_party: false, uncertainty: none}\n";
    CHECK(measurements_error("rows:\n" + ok_row) == "");
    CHECK_THAT(measurements_error("rows:\n" + ok_row + ok_row), Catch::Contains("duplicate id 'A'"));
    std::string bad = ok_row;
    bad.replace(bad.find("dma_transfer_ns"), 15, "wall_ns");
    CHECK_THAT(measurements_error("rows:\n" + bad), Catch::Contains("rows[0].metric") && Catch::Contains("one of latency_ns"));
    bad = ok_row;
    bad.replace(bad.find("source:"), 7, "sauce:");
    CHECK_THAT(measurements_error("rows:\n" + bad), Catch::Contains("rows[0].source") && Catch::Contains("missing"));
    bad = ok_row;
    bad.replace(bad.find("m1_dma_copy"), 11, "m9_nothing");
    CHECK_THAT(measurements_error("rows:\n" + bad), Catch::Contains("rows[0].config") && Catch::Contains("does not exist"));
    bad = ok_row;
    bad.replace(bad.find("metric: dma_transfer_ns"), 23, "metric: hw_parameter");
    CHECK_THAT(measurements_error("rows:\n" + bad), Catch::Contains("rows[0].parameter"));
    CHECK_THAT(measurements_error("tolerance: 15\nrows:\n" + ok_row), Catch::Contains("unknown key") && Catch::Contains(":1:"));
    CHECK_THAT(measurements_error("rows: []\n"), Catch::Contains("'rows'"));
}

TEST_CASE("calibration run configs: errors name the file, line and key") {
    CHECK(config_error("kernel: vector_add\nvector_add: {n: 25600, partitions: 128, free: 2, dtype: float32}\n") == "");
    CHECK_THAT(config_error("kernel: vector_add\n"), Catch::Contains("'vector_add'") && Catch::Contains("missing"));
    CHECK_THAT(config_error("kernel: vector_add\nvector_add: {n: 25600, partitions: 128, free: 3, dtype: float32}\n"),
               Catch::Contains("run.yaml:3") && Catch::Contains("vector_add.free") && Catch::Contains("n/partitions = 200"));
    CHECK_THAT(config_error("kernel: vector_add\nvector_add: {n: 100, partitions: 128, free: 2, dtype: float32}\n"),
               Catch::Contains("vector_add.n") && Catch::Contains("multiple of partitions"));
    CHECK_THAT(config_error("kernel: vector_add\nvector_add: {n: 25600, partitions: 129, free: 2, dtype: float32}\n"),
               Catch::Contains("vector_add.partitions") && Catch::Contains("[1, 128]"));
    CHECK_THAT(config_error("kernel: vector_add\nvector_add: {n: 25600, partitions: 128, free: 2, dtype: float32, op: mult}\n"),
               Catch::Contains("vector_add.op") && Catch::Contains("tensor_tensor | tensor_scalar"));
    CHECK_THAT(config_error("kernel: dma_copy\ndma_copy: {partitions: 4, free: 4096, dtype: int8}\n"),
               Catch::Contains("dma_copy.dtype"));
    CHECK_THAT(config_error("kernel: dma_copy\ndma_copy: {partitions: 4, free: 4096, dtype: bfloat16, direction: up}\n"),
               Catch::Contains("dma_copy.direction") && Catch::Contains("hbm_to_sbuf | sbuf_to_hbm"));
    CHECK_THAT(config_error("kernel: dma_copy\ndma_copy: {partitions: 4, free: 4096, dtype: bfloat16, size: 3}\n"),
               Catch::Contains("dma_copy.size") && Catch::Contains("unknown key"));
    CHECK_THAT(config_error("kernel: activation\nactivation: {partitions: 128, free: 64, dtype: float32, func: tanh}\n"),
               Catch::Contains("activation.func"));
    CHECK_THAT(config_error("kernel: activation\nactivation: {partitions: 128, free: 64, dtype: float32, readout: true}\n"),
               Catch::Contains("activation.readout") && Catch::Contains("reduce: true"));
    CHECK_THAT(config_error("kernel: vector_op\nvector_op: {op: tensor_copy, alu: add, partitions: 128, free: 64, dtype: float32}\n"),
               Catch::Contains("vector_op.alu"));
    CHECK_THAT(config_error("kernel: vector_op\nvector_op: {op: tensor_reduce, alu: subtract, partitions: 128, free: 64, dtype: float32}\n"),
               Catch::Contains("vector_op.alu") && Catch::Contains("add | max"));
    // A section for another kernel is an unknown key, not silently ignored.
    CHECK_THAT(config_error("kernel: dma_copy\ndma_copy: {partitions: 4, free: 4096, dtype: bfloat16}\nactivation: {free: 1}\n"),
               Catch::Contains("'activation'") && Catch::Contains("unknown key"));
    // batch_norm_bwd's keys do not apply to a calibration kernel.
    CHECK_THAT(config_error("kernel: dma_copy\ndma_copy: {partitions: 4, free: 4096, dtype: bfloat16}\nshape: {B: 1}\n"),
               Catch::Contains("'shape'") && Catch::Contains("unknown key"));
}
