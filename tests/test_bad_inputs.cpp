// The bad-input table: each row hands the real bnsim binary one bad input (a config, a --set, a
// hardware preset, a measurements file, an .npy input, a special file, an output path) and
// checks the promise every bad input gets: exit status 2, exactly one line on stderr naming the
// file (and line or key where there is one) and what was expected, in bnsim's words (no library's
// exception text: json.exception, yaml-cpp, filesystem error, bad_alloc), nothing on stdout, no crash,
// no hang (each run has a deadline) and, outside sanitizer builds, no allocation of what a file
// merely claims (the child runs under a 2 GiB address-space limit).
// Each row is its own TEST_CASE, so ctest lists and runs every row separately.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include "cli_run.h"
#include "sim/runner/under_asan.h"
#include "test_util.h"
#include "numerics/npy.h"

using namespace bnsim;
using namespace bnsim::test;

namespace {

const std::string kHwPreset = std::string(BNSIM_SOURCE_DIR) + "/configs/hw/trn2.yaml";

struct Row {
    std::vector<std::string> args;      // bnsim's arguments
    std::vector<std::string> contains;  // what the one stderr line must name
    double max_seconds = 60;
};


// A small batch_norm_bwd run config (B=2 C=4 H=W=8) plus extra top-level lines.
std::string small_config(const std::string& extra = "", const std::string& shape = "{B: 2, C: 4, D: 1, H: 8, W: 8}") {
    return "hardware: " + kHwPreset + "\nkernel: batch_norm_bwd\nshape: " + shape + "\n" + extra;
}

std::string config_file(const std::string& dir, const std::string& body, const std::string& name = "run.yaml") {
    put(dir + "/" + name, body);
    return dir + "/" + name;
}

// A .npy file with the given header dict text and raw data bytes (header padded like numpy's).
std::string npy_bytes(const std::string& dict, const std::string& data) {
    std::string h = dict;
    h.append((64 - (10 + h.size() + 1) % 64) % 64, ' ');
    h += '\n';
    std::string out("\x93NUMPY\x01\x00", 8);
    out += char(h.size() & 0xff);
    out += char(h.size() >> 8);
    return out + h + data;
}

std::string f32_bytes(const std::vector<float>& v) { return std::string(reinterpret_cast<const char*>(v.data()), v.size() * 4); }

std::string dict(const std::string& descr, const std::string& shape, const std::string& order = "False") {
    return "{'descr': '" + descr + "', 'fortran_order': " + order + ", 'shape': " + shape + ", }";
}

// Valid inputs for small_config(): dy, x_in [2, 4, 1, 8, 8]; means, variances [4]; gamma, beta [4, 1].
constexpr int kElems = 2 * 4 * 8 * 8;
std::string full_shape() { return "(2, 4, 1, 8, 8)"; }

std::vector<float> ramp(size_t n, float scale) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = scale * float(int(i % 17) - 8);
    return v;
}

void write_good_inputs(const std::string& dir) {
    put(dir + "/dy.npy", npy_bytes(dict("<f4", full_shape()), f32_bytes(ramp(kElems, 0.1f))));
    put(dir + "/x_in.npy", npy_bytes(dict("<f4", full_shape()), f32_bytes(ramp(kElems, 0.05f))));
    put(dir + "/means.npy", npy_bytes(dict("<f4", "(4,)"), f32_bytes({0.1f, 0.2f, 0.0f, -0.1f})));
    put(dir + "/variances.npy", npy_bytes(dict("<f4", "(4,)"), f32_bytes({1.0f, 0.5f, 2.0f, 1.5f})));
    put(dir + "/gamma.npy", npy_bytes(dict("<f4", "(4, 1)"), f32_bytes({1.0f, 0.9f, 1.1f, 1.2f})));
    put(dir + "/beta.npy", npy_bytes(dict("<f4", "(4, 1)"), f32_bytes({0.0f, 0.1f, -0.1f, 0.2f})));
}

// validate small_config(extra) on a directory of good inputs, after setup() spoils one.
Row validate_inputs(const std::string& dir, const std::function<void(const std::string&)>& setup,
                    std::vector<std::string> contains, const std::string& extra = "") {
    const std::string in = dir + "/in";
    mkdir(in.c_str(), 0755);
    write_good_inputs(in);
    setup(in);
    return {{"validate", config_file(dir, small_config(extra)), "--order", "sequential", "--inputs", in}, contains};
}

void check_row(const std::function<Row(const std::string& dir)>& make) {
    const std::string dir = make_temp_dir("bnsim_bad_input");
    REQUIRE(!dir.empty());
    const Row row = make(dir);
    CliOptions o;
    o.timeout_s = row.max_seconds;
    o.cwd = dir;
#if !BNSIM_UNDER_ASAN  // ASan's shadow memory alone reserves terabytes of address space
    o.address_space_limit = uint64_t(2) << 30;
#endif
    const CliResult r = run_bnsim(row.args, o);
    std::string cmd = "bnsim";
    for (const auto& a : row.args) cmd += " '" + a + "'";
    INFO(cmd);
    INFO("stderr: " << r.err);
    INFO("stdout: " << r.out);
    CHECK_FALSE(r.timed_out);
    CHECK(r.signal == 0);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK((!r.err.empty() && r.err.back() == '\n'));
    for (const auto& c : row.contains) CHECK_THAT(r.err, Catch::Contains(c));
    // No library's own error text reaches the user: each is caught where the file and key are known.
    for (const char* foreign : {"json.exception", "yaml-cpp", "filesystem error", "bad_alloc", "std::", "basic_string",
                                "stoi", "stod", "stol", "bad conversion", "terminate called", "what():"})
        CHECK_THAT(r.err, !Catch::Contains(foreign));
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);  // thousands of rows: leave no temporary folders behind
}

}  // namespace

#define BAD_INPUT(title, ...) \
    TEST_CASE("bad input: " title, "[bad_input]") { check_row(__VA_ARGS__); }

// ---- run config: YAML -----------------------------------------------------------------------
BAD_INPUT("YAML syntax error names file, line and column", [](const std::string& d) {
    return Row{{"trace", config_file(d, "kernel: [batch_norm_bwd\nlnc: 1\n")}, {d + "/run.yaml:", "YAML syntax error"}};
})
BAD_INPUT("badly indented mapping is a YAML syntax error", [](const std::string& d) {
    return Row{{"trace", config_file(d, "kernel: batch_norm_bwd\nshape:\n    B: 2\n  C: 4\n")}, {d + "/run.yaml:", "YAML syntax error"}};
})
BAD_INPUT("duplicate top-level key names both lines", [](const std::string& d) {
    return Row{{"trace", config_file(d, small_config("lnc: 1\nlnc: 2\n"))},
               {d + "/run.yaml:5:1", "key 'lnc' appears twice", "first at line 4", "expected each key once"}};
})
BAD_INPUT("duplicate key inside the shape mapping", [](const std::string& d) {
    return Row{{"trace", config_file(d, small_config("", "{B: 2, C: 4, B: 3, H: 8, W: 8}"))},
               {d + "/run.yaml:3:", "key 'B' appears twice"}};
})
BAD_INPUT("duplicate key in a hardware preset names the preset", [](const std::string& d) {
    put(d + "/hw.yaml", slurp(kHwPreset) + "\nname: trn2again\n");
    return Row{{"trace", config_file(d, "hardware: " + d + "/hw.yaml\nkernel: batch_norm_bwd\nshape: {B: 2, C: 4, H: 8, W: 8}\n")},
               {d + "/hw.yaml:", "key 'name' appears twice"}};
})
BAD_INPUT("duplicate key in a --set mapping names the --set", [](const std::string& d) {
    return Row{{"trace", config_file(d, small_config()), "--set", "memory={f_tile: 64, f_tile: 128, interleave: 1}"},
               {"--set memory=", "key 'f_tile' appears twice"}};
})
BAD_INPUT("unknown top-level key", [](const std::string& d) {
    return Row{{"trace", config_file(d, small_config("fuse_rleu: true\n"))}, {d + "/run.yaml:4:", "key 'fuse_rleu': unknown key"}};
})
BAD_INPUT("unknown key inside shape", [](const std::string& d) {
    return Row{{"trace", config_file(d, small_config("", "{B: 2, C: 4, H: 8, W: 8, Q: 1}"))}, {d + "/run.yaml:3:", "key 'shape.Q': unknown key"}};
})
BAD_INPUT("wrong type: a dimension that is not an integer", [](const std::string& d) {
    return Row{{"trace", config_file(d, small_config("", "{B: abc, C: 4, H: 8, W: 8}"))},
               {d + "/run.yaml:3:", "key 'shape.B'", "expected an integer"}};
})
BAD_INPUT("wrong type: a flag that is not a boolean", [](const std::string& d) {
    return Row{{"trace", config_file(d, small_config("fuse_relu: maybe\n"))}, {d + "/run.yaml:4:", "key 'fuse_relu'", "expected true or false"}};
})
BAD_INPUT("wrong type: shape given as a list", [](const std::string& d) {
    return Row{{"trace", config_file(d, small_config("", "[2, 4, 8, 8]"))}, {d + "/run.yaml:3:", "key 'shape'", "expected a mapping"}};
})
BAD_INPUT("wrong type: the top level is a list", [](const std::string& d) {
    return Row{{"trace", config_file(d, "- kernel: batch_norm_bwd\n")}, {d + "/run.yaml:1", "expected a mapping"}};
})
BAD_INPUT("an empty config file", [](const std::string& d) {
    return Row{{"trace", config_file(d, "# nothing\n")}, {d + "/run.yaml", "empty file", "expected a YAML run config"}};
})

// ---- run config: values ---------------------------------------------------------------------
BAD_INPUT("zero dimension", [](const std::string& d) {
    return Row{{"trace", config_file(d, small_config("", "{B: 0, C: 4, H: 8, W: 8}"))}, {d + "/run.yaml:3:", "key 'shape.B'", "[1, 2147483648]"}};
})
BAD_INPUT("negative dimension", [](const std::string& d) {
    return Row{{"trace", config_file(d, small_config("", "{B: 2, C: -3, H: 8, W: 8}"))}, {d + "/run.yaml:3:", "key 'shape.C'", "[1, 2147483648]"}};
})
BAD_INPUT("dimension beyond 2^31", [](const std::string& d) {
    return Row{{"trace", config_file(d, small_config("", "{B: 2, C: 4, H: 8, W: 4294967296}"))}, {"key 'shape.W'", "[1, 2147483648]"}};
})
BAD_INPUT("dimension beyond int64", [](const std::string& d) {
    return Row{{"trace", config_file(d, small_config("", "{B: 2, C: 4, H: 8, W: 99999999999999999999999}"))}, {"key 'shape.W'", "expected an integer"}};
})
BAD_INPUT("shape product overflowing int64 (each dimension within range)", [](const std::string& d) {
    return Row{{"run", config_file(d, small_config()), "--set", "shape.D=2", "--set", "shape.H=2147483648", "--set", "shape.W=2147483648"},
               {"key 'shape'", "B*C*D*H*W", "expected at most 2^53 elements"}};
})
BAD_INPUT("shape product beyond 2^53 elements", [](const std::string& d) {
    return Row{{"validate", config_file(d, small_config("", "{B: 2147483648, C: 2147483648, H: 1, W: 1}"))},
               {d + "/run.yaml:3:", "key 'shape'", "expected at most 2^53 elements"}};
})
BAD_INPUT("eps zero", [](const std::string& d) {
    return Row{{"trace", config_file(d, small_config("eps: 0\n"))}, {d + "/run.yaml:4:", "key 'eps'", "expected a number in"}};
})
BAD_INPUT("eps negative", [](const std::string& d) {
    return Row{{"trace", config_file(d, small_config("eps: -1.0e-5\n"))}, {d + "/run.yaml:4:", "key 'eps'", "expected a number in"}};
})
BAD_INPUT("eps NaN", [](const std::string& d) {
    return Row{{"trace", config_file(d, small_config("eps: .nan\n"))}, {d + "/run.yaml:4:", "key 'eps'", "expected a number in"}};
})
BAD_INPUT("eps infinite", [](const std::string& d) {
    return Row{{"trace", config_file(d, small_config("eps: .inf\n"))}, {d + "/run.yaml:4:", "key 'eps'", "expected a number in"}};
})
BAD_INPUT("lnc 3", [](const std::string& d) {
    return Row{{"run", config_file(d, small_config("lnc: 3\n"))}, {d + "/run.yaml:4:", "key 'lnc'", "expected an integer in [1, 2]"}};
})
BAD_INPUT("unknown dtype", [](const std::string& d) {
    return Row{{"trace", config_file(d, small_config("dtype: float16\n"))}, {d + "/run.yaml:4:", "key 'dtype'", "expected one of bfloat16 | float32"}};
})
BAD_INPUT("relu_mask supplied without fuse_relu", [](const std::string& d) {
    return Row{{"trace", config_file(d, small_config("relu_mask: supplied\n"))}, {d + "/run.yaml:4:", "key 'relu_mask'", "fuse_relu"}};
})
BAD_INPUT("unknown schedule", [](const std::string& d) {
    return Row{{"run", config_file(d, small_config("schedule: fastest\n"))}, {d + "/run.yaml:4:", "key 'schedule'", "expected one of list | program_order"}};
})
BAD_INPUT("unknown kernel", [](const std::string& d) {
    return Row{{"trace", config_file(d, "hardware: trn2\nkernel: conv2d\n")}, {d + "/run.yaml:2:", "key 'kernel'", "expected one of"}};
})
BAD_INPUT("explicit memory config that does not fit SBUF", [](const std::string& d) {
    return Row{{"trace", config_file(d, small_config("memory: {f_tile: 8192, interleave: 8}\n", "{B: 64, C: 64, H: 64, W: 64}"))},
               {d + "/run.yaml", "memory"}};
})
BAD_INPUT("explicit memory config with interleave 9", [](const std::string& d) {
    return Row{{"trace", config_file(d, small_config("memory: {f_tile: 64, interleave: 9}\n"))}, {d + "/run.yaml:4:", "key 'memory.interleave'", "[1, 8]"}};
})
BAD_INPUT("explicit memory config with f_tile 0", [](const std::string& d) {
    return Row{{"trace", config_file(d, small_config("memory: {f_tile: 0, interleave: 2}\n"))}, {d + "/run.yaml:4:", "key 'memory.f_tile'", "[1, 8192]"}};
})
BAD_INPUT("memory neither auto nor a mapping", [](const std::string& d) {
    return Row{{"trace", config_file(d, small_config("memory: lots\n"))}, {d + "/run.yaml:4:", "key 'memory'", "expected one of auto"}};
})

// ---- --set ----------------------------------------------------------------------------------
BAD_INPUT("--set with an empty key segment names the --set", [](const std::string& d) {
    return Row{{"trace", config_file(d, small_config()), "--set", "shape.=5"}, {"--set shape.=5", "empty segment", "expected a dotted key"}};
})
BAD_INPUT("--set without =", [](const std::string& d) {
    return Row{{"trace", config_file(d, small_config()), "--set", "shape.C"}, {"--set shape.C", "expected key=value"}};
})
BAD_INPUT("--set with a value that is not YAML", [](const std::string& d) {
    return Row{{"trace", config_file(d, small_config()), "--set", "shape.C=[1"}, {"--set shape.C=[1", "not valid YAML"}};
})
BAD_INPUT("--set of an unknown hardware key", [](const std::string& d) {
    return Row{{"run", config_file(d, small_config()), "--set", "hardware.sbuf.banks=4"}, {"--set hardware.sbuf.banks", "unknown hardware"}};
})

// ---- hardware presets -----------------------------------------------------------------------
BAD_INPUT("hardware preset that does not exist", [](const std::string& d) {
    return Row{{"trace", config_file(d, "hardware: nosuchpreset\nkernel: batch_norm_bwd\nshape: {B: 2, C: 4, H: 8, W: 8}\n")},
               {d + "/run.yaml:1:", "preset 'nosuchpreset' could not be loaded"}};
})
BAD_INPUT("hardware preset name longer than a file name may be", [](const std::string& d) {
    // Found by fuzz_config: the preset search once let the file system's "File name too long" escape.
    return Row{{"trace", config_file(d, "hardware: " + std::string(400, 't') + "\nkernel: batch_norm_bwd\nshape: {B: 2, C: 4, H: 8, W: 8}\n")},
               {d + "/run.yaml:1:", "could not be loaded"}};
})
BAD_INPUT("hardware preset missing a number", [](const std::string& d) {
    std::string hw = slurp(kHwPreset);
    const auto at = hw.find("  latency_ns:", hw.find("hbm:"));
    REQUIRE(at != std::string::npos);
    hw.insert(at, "  dropped_");  // hbm.latency_ns is now missing (and hbm.dropped_latency_ns unknown)
    put(d + "/hw.yaml", hw);
    return Row{{"trace", config_file(d, "hardware: " + d + "/hw.yaml\nkernel: batch_norm_bwd\nshape: {B: 2, C: 4, H: 8, W: 8}\n")},
               {d + "/hw.yaml", "hardware.hbm"}};
})
BAD_INPUT("hardware number without a source", [](const std::string& d) {
    std::string hw = slurp(kHwPreset);
    put(d + "/hw.yaml", hw + "\n");
    return Row{{"trace", config_file(d, "hardware: " + d + "/hw.yaml\nkernel: batch_norm_bwd\nshape: {B: 2, C: 4, H: 8, W: 8}\n"),
                "--set", "hardware.sbuf.partitions={value: 128}"},
               {"hardware.sbuf.partitions", "needs a source or 'estimate: true'"}};
})
BAD_INPUT("hardware value zero partitions", [](const std::string& d) {
    return Row{{"run", config_file(d, small_config()), "--set", "hardware.sbuf.partitions=0"}, {"--set hardware.sbuf.partitions", "expected an integer in"}};
})
BAD_INPUT("hardware partitions fewer than the kernel needs names the key", [](const std::string& d) {
    return Row{{"run", config_file(d, small_config()), "--set", "hardware.sbuf.partitions=32"}, {"hardware.sbuf.partitions"}};
})
BAD_INPUT("hardware negative bandwidth", [](const std::string& d) {
    return Row{{"run", config_file(d, small_config()), "--set", "hardware.hbm.bandwidth_gbps=-5"}, {"--set hardware.hbm.bandwidth_gbps", "expected a number in"}};
})
BAD_INPUT("hardware preset that is a FIFO", [](const std::string& d) {
    REQUIRE(mkfifo((d + "/hw.yaml").c_str(), 0600) == 0);
    return Row{{"trace", config_file(d, "hardware: " + d + "/hw.yaml\nkernel: batch_norm_bwd\nshape: {B: 2, C: 4, H: 8, W: 8}\n")},
               {d + "/hw.yaml", "is a FIFO", "expected a YAML hardware preset"}};
})

// ---- config files that are not files --------------------------------------------------------
BAD_INPUT("config file missing", [](const std::string& d) {
    return Row{{"run", d + "/none.yaml"}, {d + "/none.yaml", "cannot open", "expected a YAML run config"}};
})
BAD_INPUT("config path is a directory", [](const std::string& d) {
    return Row{{"run", d}, {d + ": is a directory", "expected a YAML run config"}};
})
BAD_INPUT("config path is a FIFO, refused without blocking", [](const std::string& d) {
    REQUIRE(mkfifo((d + "/run.yaml").c_str(), 0600) == 0);
    return Row{{"run", d + "/run.yaml"}, {d + "/run.yaml: is a FIFO", "expected a YAML run config"}, 20};
})
BAD_INPUT("a 10 MB config is refused before parsing", [](const std::string& d) {
    std::string big = small_config();
    while (big.size() < 10u << 20) big += "# padding padding padding padding padding padding padding padding\n";
    return Row{{"run", config_file(d, big)}, {d + "/run.yaml", "10.0 MiB; expected a YAML run config of at most 1.0 MiB"}, 20};
})

// ---- calibrate ------------------------------------------------------------------------------
BAD_INPUT("calibrate with an unknown hardware key is one config error, not a failed row each", [](const std::string&) {
    return Row{{"calibrate", "--set", "hardware.nosuch=1"}, {"--set hardware.nosuch", "unknown hardware"}};
})
BAD_INPUT("measurements row without its measured value", [](const std::string& d) {
    put(d + "/m.yaml", "rows:\n  - {id: X1, config: " + std::string(BNSIM_SOURCE_DIR) +
                           "/configs/calibration/m1_dma_copy.yaml, metric: latency_ns, source: 'a long enough source', "
                           "third_party: false, uncertainty: none}\n");
    return Row{{"calibrate", "--measurements", d + "/m.yaml"}, {d + "/m.yaml:2:", "measured", "missing"}};
})
BAD_INPUT("measurements with a duplicate id", [](const std::string& d) {
    const std::string row = "  - {id: X1, config: " + std::string(BNSIM_SOURCE_DIR) +
                            "/configs/calibration/m1_dma_copy.yaml, metric: latency_ns, measured: 10, "
                            "source: 'a long enough source', third_party: false, uncertainty: none}\n";
    put(d + "/m.yaml", "rows:\n" + row + row);
    return Row{{"calibrate", "--measurements", d + "/m.yaml"}, {d + "/m.yaml:3:", "duplicate id 'X1'"}};
})

// ---- .npy inputs (validate --inputs) --------------------------------------------------------
BAD_INPUT("npy input missing", [](const std::string& d) {
    return validate_inputs(d, [](const std::string& in) { unlink((in + "/dy.npy").c_str()); }, {"/in/dy.npy", "missing"});
})
BAD_INPUT("npy input is a directory", [](const std::string& d) {
    return validate_inputs(d, [](const std::string& in) {
        unlink((in + "/dy.npy").c_str());
        mkdir((in + "/dy.npy").c_str(), 0755);
    }, {"/in/dy.npy", "is a directory", "expected a .npy file"});
})
BAD_INPUT("npy input is a FIFO, refused without blocking", [](const std::string& d) {
    Row r = validate_inputs(d, [](const std::string& in) {
        unlink((in + "/x_in.npy").c_str());
        REQUIRE(mkfifo((in + "/x_in.npy").c_str(), 0600) == 0);
    }, {"/in/x_in.npy", "is a FIFO", "expected a .npy file"});
    r.max_seconds = 20;
    return r;
})
BAD_INPUT("npy data truncated", [](const std::string& d) {
    return validate_inputs(d, [](const std::string& in) {
        const std::string f = in + "/x_in.npy";
        REQUIRE(truncate(f.c_str(), 64 + 100) == 0);
    }, {"/in/x_in.npy", "truncated data", "needs 2048 bytes"});
})
BAD_INPUT("npy trailing bytes after the data", [](const std::string& d) {
    return validate_inputs(d, [](const std::string& in) {
        std::ofstream(in + "/dy.npy", std::ios::binary | std::ios::app) << "junk";
    }, {"/in/dy.npy", "4 bytes after the data", "expected the file to end there"});
})
BAD_INPUT("npy wrong dtype float64", [](const std::string& d) {
    return validate_inputs(d, [](const std::string& in) {
        put(in + "/gamma.npy", npy_bytes(dict("<f8", "(4, 1)"), std::string(32, '\0')));
    }, {"/in/gamma.npy", "'<f8'", "float32"});
})
BAD_INPUT("npy big-endian float32", [](const std::string& d) {
    return validate_inputs(d, [](const std::string& in) {
        put(in + "/beta.npy", npy_bytes(dict(">f4", "(4, 1)"), std::string(16, '\0')));
    }, {"/in/beta.npy", "big-endian", "expected little-endian"});
})
BAD_INPUT("npy fortran order", [](const std::string& d) {
    return validate_inputs(d, [](const std::string& in) {
        put(in + "/x_in.npy", npy_bytes(dict("<f4", full_shape(), "True"), f32_bytes(ramp(kElems, 0.1f))));
    }, {"/in/x_in.npy", "Fortran-ordered", "expected C order"});
})
BAD_INPUT("npy wrong shape", [](const std::string& d) {
    return validate_inputs(d, [](const std::string& in) {
        put(in + "/gamma.npy", npy_bytes(dict("<f4", "(5, 1)"), f32_bytes(ramp(5, 1.0f))));
    }, {"/in/gamma.npy", "shape [5, 1]", "[4, 1] is expected"});
})
BAD_INPUT("npy wrong dtype for dy (uint8)", [](const std::string& d) {
    return validate_inputs(d, [](const std::string& in) {
        put(in + "/dy.npy", npy_bytes(dict("|u1", full_shape()), std::string(kElems, '\1')));
    }, {"/in/dy.npy", "'|u1'", "float32 is expected"});
})
BAD_INPUT("npy lying header whose element count overflows", [](const std::string& d) {
    return validate_inputs(d, [](const std::string& in) {
        put(in + "/dy.npy", npy_bytes(dict("<f4", "(4611686018427387904, 4)"), std::string(64, '\0')));
    }, {"/in/dy.npy", "more elements than fit in 64 bits"});
})
BAD_INPUT("npy lying header claiming 4 GB is refused before allocating", [](const std::string& d) {
    Row r = validate_inputs(d, [](const std::string& in) {
        put(in + "/dy.npy", npy_bytes(dict("<f4", "(1000000000,)"), std::string(64, '\0')));
    }, {"/in/dy.npy", "truncated data", "needs 4000000000 bytes"});
    r.max_seconds = 20;
    return r;
})
BAD_INPUT("npy bad magic", [](const std::string& d) {
    return validate_inputs(d, [](const std::string& in) { put(in + "/means.npy", "PK\x03\x04 not numpy at all"); },
                           {"/in/means.npy", "not a .npy file"});
})
BAD_INPUT("npy header length beyond the file", [](const std::string& d) {
    return validate_inputs(d, [](const std::string& in) { put(in + "/means.npy", std::string("\x93NUMPY\x01\x00\xff\xff{'descr'", 18)); },
                           {"/in/means.npy", "truncated header"});
})
BAD_INPUT("npy header with an unexpected key", [](const std::string& d) {
    return validate_inputs(d, [](const std::string& in) {
        put(in + "/means.npy", npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), 'extra': 1, }", f32_bytes({0, 0, 0, 0})));
    }, {"/in/means.npy", "keys other than descr, fortran_order and shape"});
})
BAD_INPUT("npy unsupported format version", [](const std::string& d) {
    return validate_inputs(d, [](const std::string& in) {
        std::string b = npy_bytes(dict("<f4", "(4,)"), f32_bytes({0, 0, 0, 0}));
        b[6] = 9;
        put(in + "/means.npy", b);
    }, {"/in/means.npy", "format version 9", "expected"});
})
BAD_INPUT("NaN in x_in names the file and the first bad element", [](const std::string& d) {
    return validate_inputs(d, [](const std::string& in) {
        std::vector<float> x = ramp(kElems, 0.05f);
        x[37] = std::nanf("");
        x[90] = std::nanf("");
        put(in + "/x_in.npy", npy_bytes(dict("<f4", full_shape()), f32_bytes(x)));
    }, {"/in/x_in.npy", "element 37 is NaN", "expected finite values"});
})
BAD_INPUT("+Inf in variances", [](const std::string& d) {
    return validate_inputs(d, [](const std::string& in) {
        put(in + "/variances.npy", npy_bytes(dict("<f4", "(4,)"), f32_bytes({1.0f, HUGE_VALF, 1.0f, 1.0f})));
    }, {"/in/variances.npy", "element 1 is +inf", "expected finite values"});
})
BAD_INPUT("-Inf in dy", [](const std::string& d) {
    return validate_inputs(d, [](const std::string& in) {
        std::vector<float> v = ramp(kElems, 0.1f);
        v[0] = -HUGE_VALF;
        put(in + "/dy.npy", npy_bytes(dict("<f4", full_shape()), f32_bytes(v)));
    }, {"/in/dy.npy", "element 0 is -inf"});
})
BAD_INPUT("negative variance", [](const std::string& d) {
    return validate_inputs(d, [](const std::string& in) {
        put(in + "/variances.npy", npy_bytes(dict("<f4", "(4,)"), f32_bytes({1.0f, 1.0f, -0.5f, 1.0f})));
    }, {"/in/variances.npy", "channel 2 is negative", "expected >= 0"});
})
BAD_INPUT("relu mask with a value other than 0 and 1", [](const std::string& d) {
    return validate_inputs(d, [](const std::string& in) {
        std::string m(kElems, '\1');
        m[5] = 2;
        put(in + "/relu_mask.npy", npy_bytes(dict("|u1", full_shape()), m));
    }, {"/in/relu_mask.npy", "element 5 is 2", "expected 0 or 1"}, "fuse_relu: true\nrelu_mask: supplied\n");
})
BAD_INPUT("relu mask stored as float32", [](const std::string& d) {
    return validate_inputs(d, [](const std::string& in) {
        put(in + "/relu_mask.npy", npy_bytes(dict("<f4", full_shape()), f32_bytes(ramp(kElems, 0.0f))));
    }, {"/in/relu_mask.npy", "uint8 or bool is expected"}, "fuse_relu: true\nrelu_mask: supplied\n");
})
BAD_INPUT("--inputs that is not a directory", [](const std::string& d) {
    put(d + "/file", "x");
    return Row{{"validate", config_file(d, small_config()), "--inputs", d + "/file"}, {"--inputs", d + "/file", "expected a directory"}};
})

// ---- output paths ---------------------------------------------------------------------------
BAD_INPUT("--timeline with an empty path", [](const std::string& d) {
    return Row{{"run", config_file(d, small_config()), "--timeline", ""}, {"--timeline ''", "expected a file path"}};
})
BAD_INPUT("--dump - together with --json", [](const std::string& d) {
    return Row{{"trace", config_file(d, small_config()), "--json", "--dump", "-"}, {"--dump '-'", "--json"}};
})
BAD_INPUT("--timeline into a missing directory exits 2 before the run", [](const std::string& d) {
    return Row{{"run", config_file(d, small_config()), "--timeline", d + "/missing/run.json"}, {d + "/missing", "does not exist"}};
})
BAD_INPUT("--outputs -", [](const std::string& d) {
    return Row{{"validate", config_file(d, small_config()), "--outputs", "-"}, {"--outputs '-'", "expected a directory"}};
})

// ---- NKI kernels (kernel: nki) and trace files (kernel: trace) -----------------------------
namespace {

// A kernel file of the given body (after the imports) and a run config tracing `fn` with a
// [128, 512] fp32 tensor `a` (plus extra args).
std::string nki_row_config(const std::string& d, const std::string& body, const std::string& extra_args = "",
                           const std::string& fn = "k") {
    put(d + "/kern.py", "import nki\nimport nki.language as nl\nimport nki.isa as nisa\n\n" + body);
    return config_file(d, "hardware: " + kHwPreset + "\nkernel: nki\nnki:\n  source: kern.py\n  function: " + fn +
                              "\n  args: {a: {shape: [128, 512], dtype: float32}" + extra_args + "}\n");
}

const char* kGoodHeader =
    "{\"format\":\"bnsim-trace\",\"version\":1,\"kernel\":\"t\",\"cores\":1,\"tensors\":[{\"id\":0,\"name\":\"a\","
    "\"dtype\":\"float32\",\"shape\":[128,4],\"rows\":128,\"row_bytes\":16,\"addr\":0,\"input\":true}],\"instructions\":1}\n";
const char* kGoodDma =
    "{\"id\":0,\"core\":0,\"engine\":\"sync\",\"opcode\":\"dma_copy\",\"partitions\":128,\"free\":4,\"reads\":[{\"space\":"
    "\"hbm\",\"tensor\":\"a\",\"core\":0,\"rows\":[0,128],\"bytes\":[0,16],\"dtype\":\"float32\"}],\"writes\":[{\"space\":"
    "\"sbuf\",\"core\":0,\"partitions\":[0,128],\"bytes\":[0,16],\"dtype\":\"float32\"}],\"dge\":\"hardware\",\"queue\":0,"
    "\"tag\":{\"phase\":0,\"what\":\"x\"}}\n";

std::string trace_row_config(const std::string& d, const std::string& text) {
    put(d + "/t.jsonl", text);
    return config_file(d, "hardware: " + kHwPreset + "\nkernel: trace\ntrace: {file: t.jsonl}\n");
}

std::string replace_once(std::string s, const std::string& from, const std::string& to) {
    const size_t at = s.find(from);
    if (at != std::string::npos) s.replace(at, from.size(), to);
    return s;
}

}  // namespace

BAD_INPUT("NKI kernel file that does not parse names its line", [](const std::string& d) {
    return Row{{"run", nki_row_config(d, "@nki.jit\ndef k(a):\n    for i in range(3)\n        pass\n")},
               {"kern.py:7", "does not parse"}};
})
BAD_INPUT("NKI kernel file whose import fails names the import's line", [](const std::string& d) {
    return Row{{"run", nki_row_config(d, "import no_such_module_anywhere\n")},
               {"kern.py:5", "does not import", "no_such_module_anywhere"}};
})
BAD_INPUT("NKI kernel that raises names the raising line", [](const std::string& d) {
    return Row{{"run", nki_row_config(d, "@nki.jit\ndef k(a):\n    raise ValueError('shape not supported')\n")},
               {"kern.py:7", "raised ValueError: shape not supported"}};
})
BAD_INPUT("NKI kernel calling something the frontend does not model names the call", [](const std::string& d) {
    return Row{{"run", nki_row_config(d, "@nki.jit\ndef k(a):\n    t = nl.load(a)\n    nisa.dropout(t, 0.1)\n")},
               {"kern.py:8", "nisa.dropout", "not modelled"}};
})
BAD_INPUT("NKI tile over 128 partitions", [](const std::string& d) {
    return Row{{"run", nki_row_config(d, "@nki.jit\ndef k(a):\n    t = nl.ndarray((256, 4), dtype=nl.float32, buffer=nl.sbuf)\n")},
               {"kern.py:7", "nl.ndarray", "at most 128 partitions", "[256, 4]"}};
})
BAD_INPUT("NKI SBUF overflow names the allocation", [](const std::string& d) {
    return Row{{"run", nki_row_config(d, "@nki.jit\ndef k(a):\n    t = nl.ndarray((128, 100000), dtype=nl.float32, buffer=nl.sbuf)\n")},
               {"kern.py:7", "nl.ndarray", "SBUF overflow"}};
})
BAD_INPUT("NKI PSUM overflow names the allocation", [](const std::string& d) {
    return Row{{"run", nki_row_config(d, "@nki.jit\ndef k(a):\n    ts = [nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum) for i in range(9)]\n")},
               {"kern.py:7", "PSUM overflow"}};
})
BAD_INPUT("NKI PSUM tile larger than a bank", [](const std::string& d) {
    return Row{{"run", nki_row_config(d, "@nki.jit\ndef k(a):\n    t = nl.ndarray((128, 1024), dtype=nl.float32, buffer=nl.psum)\n")},
               {"kern.py:7", "at most one 2048 B bank"}};
})
BAD_INPUT("NKI matmul over the stationary tensor's size limit", [](const std::string& d) {
    return Row{{"run", nki_row_config(d, "@nki.jit\ndef k(a):\n    s = nl.load(a[:, 0:256])\n    m = nl.load(a)\n"
                                         "    r = nisa.nc_matmul(s, m)\n")},
               {"kern.py:9", "nisa.nc_matmul", "stationary free size of at most 128, got 256"}};
})
BAD_INPUT("NKI matmul with mismatched contraction sizes", [](const std::string& d) {
    return Row{{"run", nki_row_config(d, "@nki.jit\ndef k(a):\n    s = nl.load(a[0:64, 0:128])\n    m = nl.load(a[:, 0:256])\n"
                                         "    r = nisa.nc_matmul(s, m)\n")},
               {"kern.py:9", "nisa.nc_matmul", "same partition (contraction) size, got 64 and 128"}};
})
BAD_INPUT("NKI HBM access out of bounds names the index", [](const std::string& d) {
    return Row{{"run", nki_row_config(d, "@nki.jit\ndef k(a):\n    t = nl.load(a[:, 256:1024])\n")},
               {"kern.py:7", "a slice inside [0, 512]", "256:1024"}};
})
BAD_INPUT("NKI run config naming a function the file does not define", [](const std::string& d) {
    return Row{{"run", nki_row_config(d, "@nki.jit\ndef k(a):\n    pass\n", "", "kernel_x")},
               {"kern.py", "no function 'kernel_x'", "defines k"}};
})
BAD_INPUT("NKI run config passing an argument the function does not take", [](const std::string& d) {
    return Row{{"run", nki_row_config(d, "@nki.jit\ndef k(a):\n    t = nl.load(a)\n", ", pool: 2")},
               {"kern.py:5", "k()", "unexpected keyword argument 'pool'"}};
})
BAD_INPUT("NKI run config whose kernel file does not exist", [](const std::string& d) {
    return Row{{"run", config_file(d, "hardware: " + kHwPreset + "\nkernel: nki\nnki: {source: missing.py, function: k}\n")},
               {d + "/run.yaml:3", "nki.source", "missing.py does not exist"}};
})
BAD_INPUT("NKI tensor argument with an unknown dtype", [](const std::string& d) {
    put(d + "/kern.py", "import nki\n@nki.jit\ndef k(a):\n    pass\n");
    return Row{{"run", config_file(d, "hardware: " + kHwPreset + "\nkernel: nki\nnki: {source: kern.py, function: k, args: {a: {shape: [4], dtype: float64}}}\n")},
               {d + "/run.yaml:3", "nki.args.a.dtype", "float64"}};
})
BAD_INPUT("NKI interpreter that cannot be run", [](const std::string& d) {
    put(d + "/kern.py", "import nki\n@nki.jit\ndef k(a):\n    pass\n");
    return Row{{"run", config_file(d, "hardware: " + kHwPreset + "\nkernel: nki\nnki: {source: kern.py, function: k, python: no-such-python3}\n")},
               {"nki.python", "cannot run 'no-such-python3'"}};
})
BAD_INPUT("trace file of another format", [](const std::string& d) {
    return Row{{"run", trace_row_config(d, "{\"kernel\": \"x\"}\n")}, {"t.jsonl:1", "format", "bnsim-trace"}};
})
BAD_INPUT("trace file of a newer version", [](const std::string& d) {
    return Row{{"run", trace_row_config(d, replace_once(kGoodHeader, "\"version\":1", "\"version\":7") + kGoodDma)},
               {"t.jsonl:1", "version", "got 7"}};
})
BAD_INPUT("trace file shorter than its header says", [](const std::string& d) {
    return Row{{"run", trace_row_config(d, replace_once(kGoodHeader, "\"instructions\":1", "\"instructions\":2") + kGoodDma)},
               {"t.jsonl", "1 instructions; expected the header's 2"}};
})
BAD_INPUT("trace file region outside its tensor", [](const std::string& d) {
    return Row{{"run", trace_row_config(d, std::string(kGoodHeader) + replace_once(kGoodDma, "\"rows\":[0,128]", "\"rows\":[0,129]"))},
               {"t.jsonl:2", "rows", "from 0 to 128"}};
})
BAD_INPUT("trace file with an unknown instruction key", [](const std::string& d) {
    return Row{{"run", trace_row_config(d, std::string(kGoodHeader) + replace_once(kGoodDma, "\"queue\":0", "\"queue\":0,\"qeue\":1"))},
               {"t.jsonl:2", "qeue", "unknown"}};
})
BAD_INPUT("trace file with a key twice in one object", [](const std::string& d) {
    return Row{{"run", trace_row_config(d, std::string(kGoodHeader) + replace_once(kGoodDma, "\"queue\":0", "\"queue\":0,\"queue\":1"))},
               {"t.jsonl:2", "queue", "each key once"}};
})
BAD_INPUT("trace file nested deeper than any record", [](const std::string& d) {
    return Row{{"run", trace_row_config(d, std::string(kGoodHeader) + std::string(100000, '[') + "\n")},
               {"t.jsonl:2", "levels deep"}};
})
BAD_INPUT("trace file that is a FIFO is refused without blocking", [](const std::string& d) {
    mkfifo((d + "/t.jsonl").c_str(), 0644);
    return Row{{"run", config_file(d, "hardware: " + kHwPreset + "\nkernel: trace\ntrace: {file: t.jsonl}\n")},
               {"t.jsonl", "a FIFO"}, 20};
})
BAD_INPUT("trace file of 2 cores for a 1-core config", [](const std::string& d) {
    return Row{{"run", trace_row_config(d, replace_once(kGoodHeader, "\"cores\":1", "\"cores\":2") + kGoodDma)},
               {"trace.file", "2 core(s)", "lnc 1"}};
})
BAD_INPUT("NKI DMA whose sides differ in rows (a transposing copy) names its call", [](const std::string& d) {
    return Row{{"run", nki_row_config(d, "@nki.jit\ndef k(a):\n    t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)\n"
                                         "    nisa.dma_copy(dst=t, src=a)\n    u = nl.ndarray((64, 4), dtype=nl.float32, buffer=nl.sbuf)\n"
                                         "    nisa.dma_copy(dst=u, src=a[0, 0:256])\n")},
               {"kern.py:10", "nisa.dma_copy", "one row per partition", "not modelled"}};
})
BAD_INPUT("trace file line longer than any record", [](const std::string& d) {
    return Row{{"run", trace_row_config(d, std::string(kGoodHeader) + "{\"id\":0," + std::string(2 << 20, ' ') + "}\n")},
               {"t.jsonl:2", "a line of at most 1048576 bytes"}};
})
BAD_INPUT("empty trace file", [](const std::string& d) {
    return Row{{"run", trace_row_config(d, "")}, {"t.jsonl", "empty file"}};
})

// ---- measured-runs CSV (compare, fit) -------------------------------------------------------
namespace {

const std::string apps_small_config = std::string(BNSIM_SOURCE_DIR) + "/configs/calibration/m4_vector_add_free2.yaml";
const std::string apps_default_config = std::string(BNSIM_SOURCE_DIR) + "/configs/default.yaml";
const std::string apps_explorer_dir = std::string(BNSIM_SOURCE_DIR) + "/tests/data/profiles/explorer";

// d/NAME holding text; returns its path.
std::string apps_file(const std::string& d, const std::string& name, const std::string& text) {
    put(d + "/" + name, text);
    return d + "/" + name;
}

// A measured-runs CSV of one point of the small vector-add config with the given latency_us cell.
std::string apps_latency_csv(const std::string& d, const std::string& latency) {
    return apps_file(d, "m.csv", "id,config,latency_us\nP1," + apps_small_config + "," + latency + "\n");
}

// `compare FILE` for a file d/NAME holding text.
Row apps_compare(const std::string& d, const std::string& name, const std::string& text, std::vector<std::string> contains) {
    return Row{{"compare", apps_file(d, name, text)}, contains, 10};
}

// A sweep file over the small vector-add config (or `base`) with the given grid lines.
std::string apps_sweep_file(const std::string& d, const std::string& grid, const std::string& name = "s.yaml",
                            const std::string& base = apps_small_config) {
    return apps_file(d, name, "base: " + base + "\ngrid:\n" + grid);
}

// Runs a real sweep (the binary under test) into out; the row's setup, so it must succeed.
void apps_run_sweep(const std::string& d, const std::string& sweep, const std::string& out,
                    const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args{"sweep", sweep, "--out", out, "-j", "1"};
    args.insert(args.end(), extra.begin(), extra.end());
    CliOptions o;
    o.timeout_s = 120;
    o.cwd = d;
    const CliResult r = run_bnsim(args, o);
    INFO("setup sweep stderr: " << r.err);
    REQUIRE(r.exit_code == 0);
}

// A finished one-point sweep in d/out whose folder edit() then spoils; the row resumes it.
Row apps_resume_row(const std::string& d, const std::function<void(const std::string& out)>& edit,
                    std::vector<std::string> contains) {
    const std::string sweep = apps_sweep_file(d, "  vector_add.free: [200]\n");
    const std::string out = d + "/out";
    apps_run_sweep(d, sweep, out);
    edit(out);
    return Row{{"sweep", sweep, "--out", out, "--resume", "-j", "1"}, contains, 30};
}

// The first record of a sweep folder's results.jsonl.
nlohmann::json apps_first_record(const std::string& out) {
    std::istringstream in(slurp(out + "/results.jsonl"));
    std::string line;
    std::getline(in, line);
    return nlohmann::json::parse(line);
}

// Shards 0/2 and 1/2 of a two-point sweep in d/a0 and d/a1 (the row's setup).
void apps_shards(const std::string& d) {
    const std::string s = apps_sweep_file(d, "  vector_add.free: [100, 200]\n");
    apps_run_sweep(d, s, d + "/a0", {"--shard", "0/2"});
    apps_run_sweep(d, s, d + "/a1", {"--shard", "1/2"});
}

}  // namespace

BAD_INPUT("measured CSV with a 50000-character column name", [](const std::string& d) {
    return apps_compare(d, "m.csv", "id,config," + std::string(50000, 'x') + ",latency_us\nP1," + apps_small_config + ",1,186\n",
                        {d + "/m.csv:2:", "(50000 characters)", "unknown key"});
})
BAD_INPUT("measured CSV starting with a byte-order mark names the real column", [](const std::string& d) {
    return apps_compare(d, "m.csv", "\xEF\xBB\xBFlatency_us,config\nfast," + apps_small_config + "\n",
                        {d + "/m.csv:2:", "field 'latency_us': expected a number, got 'fast'"});
})
BAD_INPUT("measured CSV latency 1e308", [](const std::string& d) {
    return Row{{"compare", apps_latency_csv(d, "1e308")}, {d + "/m.csv:2:", "field 'latency_us'", "expected a latency in (0, 1e9] us", "'1e308'"}, 10};
})
BAD_INPUT("measured CSV of 10001 rows is refused before any simulation", [](const std::string& d) {
    std::string text = "id,config,latency_us\n";
    for (int i = 0; i < 10001; ++i) text += "P" + std::to_string(i) + "," + apps_small_config + ",186\n";
    return apps_compare(d, "m.csv", text, {d + "/m.csv", "10001 measured rows", "expected at most 10000"});
})
BAD_INPUT("measured CSV unknown column names the column and the line", [](const std::string& d) {
    return apps_compare(d, "m.csv", "id,config,shape.nosuch,latency_us\nP1," + apps_small_config + ",1,186\n",
                        {d + "/m.csv:2:", "column shape.nosuch", "unknown key"});
})
BAD_INPUT("measured CSV column value the config rejects", [](const std::string& d) {
    return apps_compare(d, "m.csv", "id,config,vector_add.free,latency_us\nP1," + apps_small_config + ",abc,186\n",
                        {d + "/m.csv:2:", "column vector_add.free", "expected an integer in [1, 16777216], got 'abc'"});
})
BAD_INPUT("measured CSV latency 1e10 us is past any kernel", [](const std::string& d) {
    return Row{{"compare", apps_latency_csv(d, "1e10")}, {d + "/m.csv:2:", "field 'latency_us'", "expected a latency in (0, 1e9] us", "'1e10'"}, 10};
})
BAD_INPUT("measured CSV percentile column negative", [](const std::string& d) {
    return apps_compare(d, "m.csv", "id,config,latency_us,p99_us\nP1," + apps_small_config + ",186,-1\n",
                        {d + "/m.csv:2:", "field 'p99_us'", "expected a latency in (0, 1e9] us", "'-1'"});
})
BAD_INPUT("measured CSV percentile column 1e308", [](const std::string& d) {
    return apps_compare(d, "m.csv", "id,config,latency_us,p99_us\nP1," + apps_small_config + ",186,1e308\n",
                        {d + "/m.csv:2:", "field 'p99_us'", "expected a latency in (0, 1e9] us", "'1e308'"});
})
BAD_INPUT("measured CSV p50 column zero", [](const std::string& d) {
    return apps_compare(d, "m.csv", "id,config,latency_us,p50_us\nP1," + apps_small_config + ",186,0\n",
                        {d + "/m.csv:2:", "field 'p50_us'", "expected a latency in (0, 1e9] us"});
})
BAD_INPUT("measured CSV hardware column the preset rejects names the column", [](const std::string& d) {
    return apps_compare(d, "m.csv", "id,config,hardware.dma.issue_ns,latency_us\nP1," + apps_small_config + ",-5,186\n",
                        {d + "/m.csv:2:", "column hardware.dma.issue_ns", "expected a number in [0, 1e+07], got '-5'"});
})

// ---- profiles: JSON ---------------------------------------------------------------------------
BAD_INPUT("profile JSON total_time nested 100000 arrays deep", [](const std::string& d) {
    return apps_compare(d, "p.json", "{\"summary\": [{\"total_time\": " + std::string(100000, '[') + std::string(100000, ']') + "}]}\n",
                        {d + "/p.json", "summary[0].total_time", "nested deeper than 64 levels", "expected a profile JSON"});
})
BAD_INPUT("profile JSON key given twice in one object", [](const std::string& d) {
    return apps_compare(d, "p.json", "{\"summary\": [{\"total_time\": 1.5e-05, \"total_time\": 2e-05}]}\n",
                        {d + "/p.json", "summary[0].total_time", "key given twice in one object"});
})
BAD_INPUT("profile JSON negative total_time", [](const std::string& d) {
    return apps_compare(d, "p.json", "{\"summary\": [{\"total_time\": -1.5e-05}]}\n",
                        {d + "/p.json", "summary[0]", "field 'total_time'", "expected a non-negative number"});
})
BAD_INPUT("profile JSON total_time zero", [](const std::string& d) {
    return apps_compare(d, "p.json", "{\"summary\": [{\"total_time\": 0}]}\n",
                        {d + "/p.json", "field 'total_time'", "expected a positive time in seconds"});
})
BAD_INPUT("profile JSON total_time 1e400", [](const std::string& d) {
    return apps_compare(d, "p.json", "{\"summary\": [{\"total_time\": 1e400}]}\n", {d + "/p.json", "expected a profile JSON"});
})
BAD_INPUT("profile JSON negative dma_active_time", [](const std::string& d) {
    return apps_compare(d, "p.json", "{\"summary\": [{\"total_time\": 1.5e-05, \"dma_active_time\": -1}]}\n",
                        {d + "/p.json", "summary[0]", "field 'dma_active_time'", "expected a non-negative number, got '-1'"});
})
BAD_INPUT("profile JSON negative dma_transfer_count", [](const std::string& d) {
    return apps_compare(d, "p.json", "{\"summary\": [{\"total_time\": 1.5e-05, \"dma_transfer_count\": -3}]}\n",
                        {d + "/p.json", "summary[0]", "field 'dma_transfer_count'", "expected a non-negative number, got '-3'"});
})
BAD_INPUT("profile JSON byte count 1e400", [](const std::string& d) {
    return apps_compare(d, "p.json", "{\"summary\": [{\"total_time\": 1.5e-05, \"hbm_read_bytes\": 1e400}]}\n",
                        {d + "/p.json", "expected a profile JSON"});
})
BAD_INPUT("profile JSON table key given twice at the top level", [](const std::string& d) {
    return apps_compare(d, "p.json", "{\"summary\": [{\"total_time\": 1.5e-05}], \"summary\": []}\n",
                        {d + "/p.json", "summary: key given twice in one object", "expected each key once"});
})

// ---- profiles: Explorer CSV tables, folders, summary-text ---------------------------------------
BAD_INPUT("profile folder of more than 64 table files", [](const std::string& d) {
    const std::string dir = d + "/prof";
    mkdir(dir.c_str(), 0755);
    const std::string summary = slurp(apps_explorer_dir + "/summary.csv");
    for (int i = 0; i < 65; ++i) put(dir + "/summary" + std::to_string(i) + ".csv", summary);
    return Row{{"compare", dir}, {dir + ": 65 table files", "expected a profile folder of at most 64"}, 10};
})
BAD_INPUT("Explorer summary table with a negative total_time", [](const std::string& d) {
    return apps_compare(d, "summary.csv", "total_time,dma_active_time,hbm_read_bytes\n-1.52e-05,1.18e-05,204800\n",
                        {d + "/summary.csv:2:", "field 'total_time'", "expected a non-negative number"});
})
BAD_INPUT("Explorer summary table with total_time zero", [](const std::string& d) {
    return apps_compare(d, "summary.csv", "total_time,dma_active_time,hbm_read_bytes\n0,1.18e-05,204800\n",
                        {d + "/summary.csv:2:", "field 'total_time'", "expected a positive time in seconds"});
})
BAD_INPUT("Explorer summary table with total_time 1e308", [](const std::string& d) {
    return apps_compare(d, "summary.csv", "total_time,dma_active_time,hbm_read_bytes\n1e308,1.18e-05,204800\n",
                        {d + "/summary.csv:2:", "field 'total_time'", "expected seconds of at most 86400", "'1e308'"});
})
BAD_INPUT("Explorer summary table with a negative byte count", [](const std::string& d) {
    return apps_compare(d, "summary.csv", "total_time,dma_active_time,hbm_read_bytes\n1.52e-05,1.18e-05,-204800\n",
                        {d + "/summary.csv:2:", "field 'hbm_read_bytes'", "expected a non-negative number"});
})
BAD_INPUT("Explorer DMA packet table starting with a byte-order mark names start_ts", [](const std::string& d) {
    return apps_compare(d, "dma_packet.csv",
                        "\xEF\xBB\xBFstart_ts,end_ts,engine_idx,queue_type,queue_name,read_bytes,write_bytes,transfer_bytes,throughput\n"
                        "1500,1000,0,hwdge,q,6400,6400,6400,0.86\n",
                        {d + "/dma_packet.csv:2:", "field 'end_ts'", "ends before it starts"});
})
BAD_INPUT("summary-text profile with a negative total_time", [](const std::string& d) {
    return apps_compare(d, "summary.txt", "n_0000\n    total_time   -1.52e-05\n",
                        {d + "/summary.txt:2:", "field 'total_time'", "expected a non-negative number"});
})
BAD_INPUT("summary-text profile with total_time 1e308", [](const std::string& d) {
    return apps_compare(d, "summary.txt", "n_0000\n    total_time   1e308\n",
                        {d + "/summary.txt:2:", "field 'total_time'", "expected seconds of at most 86400"});
})
BAD_INPUT("summary-text profile with a negative dma_active_time", [](const std::string& d) {
    return apps_compare(d, "summary.txt", "n_0000\n    total_time   1.5e-05\n    dma_active_time   -4\n",
                        {d + "/summary.txt:3:", "field 'dma_active_time'", "expected a non-negative number"});
})

// ---- special files as sweep, measured and profile inputs ---------------------------------------
BAD_INPUT("sweep file that is a FIFO is refused without blocking", [](const std::string& d) {
    REQUIRE(mkfifo((d + "/s.yaml").c_str(), 0600) == 0);
    return Row{{"sweep", d + "/s.yaml", "--out", d + "/out"}, {d + "/s.yaml: is a FIFO", "expected a sweep file (YAML)"}, 10};
})
BAD_INPUT("compare measured file that is a FIFO is refused without blocking", [](const std::string& d) {
    REQUIRE(mkfifo((d + "/m.csv").c_str(), 0600) == 0);
    return Row{{"compare", d + "/m.csv"}, {d + "/m.csv: is a FIFO", "expected a measured-runs file"}, 10};
})
BAD_INPUT("fit measured file that is a FIFO is refused without blocking", [](const std::string& d) {
    REQUIRE(mkfifo((d + "/m.csv").c_str(), 0600) == 0);
    return Row{{"fit", d + "/m.csv", "--params", "dma.issue_ns"}, {d + "/m.csv: is a FIFO", "expected a measured-runs file"}, 10};
})
BAD_INPUT("profile JSON that is a FIFO is refused without blocking", [](const std::string& d) {
    REQUIRE(mkfifo((d + "/profile.json").c_str(), 0600) == 0);
    return Row{{"compare", d + "/profile.json"}, {d + "/profile.json: is a FIFO"}, 10};
})
BAD_INPUT("compare measured file /dev/zero is refused without reading it", [](const std::string&) {
    return Row{{"compare", "/dev/zero"}, {"/dev/zero: is a device", "expected a measured-runs file"}, 10};
})

// ---- sweep files -------------------------------------------------------------------------------
BAD_INPUT("sweep of three 1000-value axes is refused with its point count", [](const std::string& d) {
    const std::string s = apps_sweep_file(d, "  memory.f_tile: {from: 1, to: 1000}\n  memory.interleave: {from: 1, to: 1000}\n"
                                             "  shape.C: {from: 1, to: 1000}\n", "s.yaml", apps_default_config);
    return Row{{"sweep", s, "--out", d + "/out"}, {d + "/s.yaml", "1e+09 points", "expected at most 20000"}, 10};
})
BAD_INPUT("sweep grid with a complex key", [](const std::string& d) {
    const std::string s = apps_sweep_file(d, "  ? [a, b]\n  : [1]\n");
    return Row{{"sweep", s, "--out", d + "/out"}, {d + "/s.yaml:3:", "a key that is a list", "expected a plain key"}, 10};
})
BAD_INPUT("sweep grid key misspelt names the sweep file's line", [](const std::string& d) {
    const std::string s = apps_sweep_file(d, "  memory.f_tilx: [512]\n", "s.yaml", apps_default_config);
    return Row{{"sweep", s, "--out", d + "/out"}, {d + "/s.yaml:3:3", "grid key memory.f_tilx", "unknown key"}, 10};
})
BAD_INPUT("sweep grid key of an unknown section", [](const std::string& d) {
    const std::string s = apps_sweep_file(d, "  nosuch.key: [1]\n");
    return Row{{"sweep", s, "--out", d + "/out"}, {d + "/s.yaml:3:3", "grid key nosuch.key", "unknown key"}, 10};
})
BAD_INPUT("sweep file timeout 1e10", [](const std::string& d) {
    const std::string s = apps_file(d, "s.yaml", "base: " + apps_small_config + "\ntimeout: 1e10\ngrid:\n  vector_add.free: [2]\n");
    return Row{{"sweep", s, "--out", d + "/out"}, {d + "/s.yaml:2:", "timeout", "expected seconds per point in (0, 86400]"}, 10};
})
BAD_INPUT("sweep file with base given twice", [](const std::string& d) {
    const std::string s = apps_file(d, "s.yaml", "base: " + apps_small_config + "\nbase: " + apps_default_config +
                                                     "\ngrid:\n  vector_add.free: [2]\n");
    return Row{{"sweep", s, "--out", d + "/out"}, {d + "/s.yaml:2:1", "key 'base' appears twice", "first at line 1"}, 10};
})
BAD_INPUT("sweep point with a key given twice", [](const std::string& d) {
    const std::string s = apps_file(d, "s.yaml", "base: " + apps_small_config +
                                                     "\npoints:\n  - {vector_add.free: 2, vector_add.free: 4}\n");
    return Row{{"sweep", s, "--out", d + "/out"}, {d + "/s.yaml:3:", "key 'vector_add.free' appears twice"}, 10};
})
BAD_INPUT("sweep point key unknown names the sweep file's line", [](const std::string& d) {
    const std::string s = apps_file(d, "s.yaml", "base: " + apps_small_config + "\npoints:\n  - {nosuch.k: 1}\n");
    return Row{{"sweep", s, "--out", d + "/out"}, {d + "/s.yaml:3:", "points[0] key nosuch.k", "unknown key"}, 10};
})
BAD_INPUT("sweep grid value that is a list names the sweep file's line", [](const std::string& d) {
    const std::string s = apps_sweep_file(d, "  vector_add.free: [2, [4]]\n");
    return Row{{"sweep", s, "--out", d + "/out"}, {d + "/s.yaml:3:3", "grid key vector_add.free", "got a list"}, 10};
})
BAD_INPUT("sweep grid key below a scalar key names the sweep file's line", [](const std::string& d) {
    const std::string s = apps_sweep_file(d, "  vector_add.free: [2]\n  vector_add.free.x: [2]\n");
    return Row{{"sweep", s, "--out", d + "/out"}, {d + "/s.yaml:4:3", "grid key vector_add.free.x", "'free' is not a mapping"}, 10};
})

// ---- sweep options -----------------------------------------------------------------------------
BAD_INPUT("sweep --timeout 1e10", [](const std::string& d) {
    return Row{{"sweep", apps_sweep_file(d, "  vector_add.free: [200]\n"), "--out", d + "/out", "--timeout", "1e10"},
               {"--timeout", "expected seconds in (0, 86400]", "got '1e10'"}, 30};
})
BAD_INPUT("sweep --timeout nan", [](const std::string& d) {
    return Row{{"sweep", apps_sweep_file(d, "  vector_add.free: [200]\n"), "--out", d + "/out", "--timeout", "nan"},
               {"--timeout", "expected seconds in (0, 86400]", "got 'nan'"}, 30};
})
BAD_INPUT("sweep --timeout -1", [](const std::string& d) {
    return Row{{"sweep", apps_sweep_file(d, "  vector_add.free: [200]\n"), "--out", d + "/out", "--timeout", "-1"},
               {"--timeout", "expected seconds in (0, 86400]", "got '-1'"}, 30};
})
BAD_INPUT("sweep -j 0", [](const std::string& d) {
    return Row{{"sweep", apps_sweep_file(d, "  vector_add.free: [200]\n"), "--out", d + "/out", "-j", "0"},
               {"--jobs", "expected an integer in [1, 256]", "got '0'"}, 30};
})
BAD_INPUT("sweep -j 1000", [](const std::string& d) {
    return Row{{"sweep", apps_sweep_file(d, "  vector_add.free: [200]\n"), "--out", d + "/out", "-j", "1000"},
               {"--jobs", "expected an integer in [1, 256]", "got '1000'"}, 30};
})
BAD_INPUT("sweep with an unknown option is one line", [](const std::string& d) {
    return Row{{"sweep", apps_sweep_file(d, "  vector_add.free: [200]\n"), "--out", d + "/out", "--nosuch"},
               {"--nosuch", "--help lists the options"}, 10};
})
BAD_INPUT("sweep --timeout that is not a number", [](const std::string& d) {
    return Row{{"sweep", apps_sweep_file(d, "  vector_add.free: [200]\n"), "--out", d + "/out", "--timeout", "5x"},
               {"--timeout", "expected seconds in (0, 86400]", "got '5x'"}, 10};
})
BAD_INPUT("sweep -j 1e3", [](const std::string& d) {
    return Row{{"sweep", apps_sweep_file(d, "  vector_add.free: [200]\n"), "--out", d + "/out", "-j", "1e3"},
               {"--jobs", "expected an integer in [1, 256]", "got '1e3'"}, 10};
})
BAD_INPUT("sweep --out given twice is one line", [](const std::string& d) {
    return Row{{"sweep", apps_sweep_file(d, "  vector_add.free: [200]\n"), "--out", d + "/out", "--out", d + "/out2"},
               {"--out", "--help lists the options"}, 10};
})

// ---- sweep --resume on an edited folder ----------------------------------------------------------
BAD_INPUT("sweep --resume whose first record lacks fields", [](const std::string& d) {
    return apps_resume_row(d, [](const std::string& out) {
        const nlohmann::json rec = apps_first_record(out);
        put(out + "/results.jsonl", nlohmann::json{{"id", rec.at("id")}}.dump() + "\n");
    }, {d + "/out/results.jsonl:1:", "expected a field 'status'", "not a bnsim sweep record"});
})
BAD_INPUT("sweep --resume whose record has run.latency_ns a string", [](const std::string& d) {
    return apps_resume_row(d, [](const std::string& out) {
        nlohmann::json rec = apps_first_record(out);
        rec["run"]["latency_ns"] = "fast";
        put(out + "/results.jsonl", rec.dump() + "\n");
    }, {d + "/out/results.jsonl:1:", "run.latency_ns", "expected a number"});
})
BAD_INPUT("sweep --resume whose sweep.json is not JSON", [](const std::string& d) {
    return apps_resume_row(d, [](const std::string& out) { put(out + "/sweep.json", "{not json"); },
                           {d + "/out/sweep.json:1:", "JSON syntax error", "expected a bnsim sweep.json"});
})

// ---- merge ---------------------------------------------------------------------------------------
BAD_INPUT("merge --out naming a file", [](const std::string& d) {
    apps_shards(d);
    put(d + "/file", "x\n");
    return Row{{"merge", d + "/a0", d + "/a1", "--out", d + "/file"}, {"--out " + d + "/file", "exists and is not a folder"}, 10};
})
BAD_INPUT("merge --out the same as an input shard", [](const std::string& d) {
    apps_shards(d);
    return Row{{"merge", d + "/a0", d + "/a1", "--out", d + "/a0"}, {"--out " + d + "/a0", "one of the folders being merged"}, 10};
})
BAD_INPUT("merge --out another sweep's finished folder without --force", [](const std::string& d) {
    apps_shards(d);
    apps_run_sweep(d, apps_sweep_file(d, "  vector_add.free: [50]\n", "b.yaml"), d + "/b");
    return Row{{"merge", d + "/a0", d + "/a1", "--out", d + "/b"}, {"--out " + d + "/b", "an earlier merge did not write", "--force"}, 10};
})
BAD_INPUT("merge --out empty", [](const std::string& d) {
    apps_shards(d);
    return Row{{"merge", d + "/a0", d + "/a1", "--out", ""}, {"--out ''", "expected a directory"}, 10};
})
BAD_INPUT("merge without --out is one line", [](const std::string& d) {
    apps_shards(d);
    return Row{{"merge", d + "/a0", d + "/a1"}, {"--out is required", "--help lists the options"}, 10};
})
BAD_INPUT("merge with an unknown option is one line", [](const std::string& d) {
    apps_shards(d);
    return Row{{"merge", d + "/a0", d + "/a1", "--out", d + "/merged", "--nosuch"}, {"--nosuch", "--help lists the options"}, 10};
})
BAD_INPUT("merge input whose sweep.json is not JSON", [](const std::string& d) {
    apps_shards(d);
    put(d + "/a0/sweep.json", "{bad");
    return Row{{"merge", d + "/a0", d + "/a1", "--out", d + "/merged"}, {d + "/a0/sweep.json:1:", "JSON syntax error", "expected a bnsim sweep.json"}, 10};
})
BAD_INPUT("merge input whose record lacks fields", [](const std::string& d) {
    apps_shards(d);
    const nlohmann::json rec = apps_first_record(d + "/a0");
    put(d + "/a0/results.jsonl", nlohmann::json{{"id", rec.at("id")}}.dump() + "\n");
    return Row{{"merge", d + "/a0", d + "/a1", "--out", d + "/merged"}, {d + "/a0/results.jsonl:1:", "expected a field 'status'"}, 10};
})
BAD_INPUT("merge input whose record has run.latency_ns a string", [](const std::string& d) {
    apps_shards(d);
    nlohmann::json rec = apps_first_record(d + "/a0");
    rec["run"]["latency_ns"] = "fast";
    put(d + "/a0/results.jsonl", rec.dump() + "\n");
    return Row{{"merge", d + "/a0", d + "/a1", "--out", d + "/merged"}, {d + "/a0/results.jsonl:1:", "run.latency_ns", "expected a number"}, 10};
})
BAD_INPUT("merge input whose results.jsonl has a line that is not JSON", [](const std::string& d) {
    apps_shards(d);
    std::ofstream(d + "/a0/results.jsonl", std::ios::app) << "not json\n";
    return Row{{"merge", d + "/a0", d + "/a1", "--out", d + "/merged"},
               {d + "/a0/results.jsonl:2:", "JSON syntax error", "expected a result record"}, 10};
})

// ---- compare options -----------------------------------------------------------------------------
BAD_INPUT("compare --tolerance nan", [](const std::string& d) {
    return Row{{"compare", apps_latency_csv(d, "186"), "--tolerance", "nan"}, {"--tolerance", "expected a percentage in (0, 1000]", "got 'nan'"}, 30};
})
BAD_INPUT("compare --tolerance -1", [](const std::string& d) {
    return Row{{"compare", apps_latency_csv(d, "186"), "--tolerance", "-1"}, {"--tolerance", "expected a percentage in (0, 1000]", "got '-1'"}, 30};
})
BAD_INPUT("compare --tolerance 1e400", [](const std::string& d) {
    return Row{{"compare", apps_latency_csv(d, "186"), "--tolerance", "1e400"}, {"--tolerance", "expected a percentage in (0, 1000]", "got '1e400'"}, 30};
})
BAD_INPUT("compare --jobs 0", [](const std::string& d) {
    return Row{{"compare", apps_latency_csv(d, "186"), "--jobs", "0"}, {"--jobs", "expected an integer in [1, 256]", "got '0'"}, 30};
})
BAD_INPUT("compare --timeout 0", [](const std::string& d) {
    return Row{{"compare", apps_latency_csv(d, "186"), "--timeout", "0"}, {"--timeout", "expected seconds in (0, 86400]", "got '0'"}, 30};
})
BAD_INPUT("compare with an unknown option is one line", [](const std::string& d) {
    return Row{{"compare", apps_latency_csv(d, "186"), "--nosuch"}, {"--nosuch", "--help lists the options"}, 10};
})

// ---- fit --params and options ----------------------------------------------------------------------
BAD_INPUT("fit bound nan", [](const std::string& d) {
    return Row{{"fit", apps_latency_csv(d, "186"), "--params", "dma.issue_ns=1:nan"},
               {"--params dma.issue_ns=1:nan", "expected NAME=LO:HI with finite numbers"}, 30};
})
BAD_INPUT("fit --max-evals 0", [](const std::string& d) {
    return Row{{"fit", apps_latency_csv(d, "186"), "--params", "dma.issue_ns", "--max-evals", "0"},
               {"--max-evals", "expected an integer in [1,", "got '0'"}, 30};
})
BAD_INPUT("fit --max-evals 1e9", [](const std::string& d) {
    return Row{{"fit", apps_latency_csv(d, "186"), "--params", "dma.issue_ns", "--max-evals", "1e9"},
               {"--max-evals", "expected an integer in [1,", "got '1e9'"}, 30};
})
BAD_INPUT("fit --jobs 0", [](const std::string& d) {
    return Row{{"fit", apps_latency_csv(d, "186"), "--params", "dma.issue_ns", "--jobs", "0"},
               {"--jobs", "expected an integer in [1, 256]", "got '0'"}, 30};
})
BAD_INPUT("fit with an unknown option is one line", [](const std::string& d) {
    return Row{{"fit", apps_latency_csv(d, "186"), "--params", "dma.issue_ns", "--nosuch"}, {"--nosuch", "--help lists the options"}, 10};
})

// ---- sensitivity ranges, axes and options --------------------------------------------------------
BAD_INPUT("sensitivity --range of a cost row below zero", [](const std::string& d) {
    return Row{{"sensitivity", config_file(d, small_config()), "--range", "costs.dve.reciprocal.cycles_per_elem=-8:-4"},
               {"--range costs.dve.reciprocal.cycles_per_elem=-8:-4", "expected cycles per element in [0, 10000]"}, 30};
})
BAD_INPUT("sensitivity --axis value the config rejects names the --axis", [](const std::string& d) {
    return Row{{"sensitivity", config_file(d, small_config()), "--axis", "memory.f_tile=abc"},
               {"--axis memory.f_tile", "key 'memory.f_tile'", "got 'abc'"}, 30};
})
BAD_INPUT("sensitivity grid of more than 2000 configs is refused with its count", [](const std::string& d) {
    return Row{{"sensitivity", config_file(d, small_config()), "--axis", "memory.f_tile=128,256,512,1024,2048",
                "--axis", "memory.interleave=1,2,3,4,5,6,7,8", "--axis", "memory.direct_x_residency=true,false",
                "--axis", "shape.C=64,128,256,512,1024,2048", "--axis", "shape.B=1,2,4,8,16,32"},
               {"--axis", "5 x 8 x 2 x 6 x 6 = 2880 configs", "expected at most 2000"}, 10};
})
BAD_INPUT("sensitivity --tie nan", [](const std::string& d) {
    return Row{{"sensitivity", config_file(d, small_config()), "--tie", "nan"}, {"--tie", "expected a percentage in [0, 100]", "got 'nan'"}, 30};
})
BAD_INPUT("sensitivity --threshold -1", [](const std::string& d) {
    return Row{{"sensitivity", config_file(d, small_config()), "--threshold", "-1"},
               {"--threshold", "expected a percentage in [0, 100]", "got '-1'"}, 30};
})
BAD_INPUT("sensitivity --jobs 0", [](const std::string& d) {
    return Row{{"sensitivity", config_file(d, small_config()), "--jobs", "0"}, {"--jobs", "expected an integer in [1, 256]", "got '0'"}, 30};
})
BAD_INPUT("sensitivity --range of a cost row up to 1e308", [](const std::string& d) {
    return Row{{"sensitivity", config_file(d, small_config()), "--range", "costs.dve.reciprocal.cycles_per_elem=0:1e308"},
               {"--range costs.dve.reciprocal.cycles_per_elem=0:1e308", "expected cycles per element in [0, 10000]", "got 1e+308"}, 30};
})

// ---- run --profile-out ---------------------------------------------------------------------------
BAD_INPUT("run --profile-out into a folder holding other files names a file", [](const std::string& d) {
    mkdir((d + "/prof").c_str(), 0755);
    put(d + "/prof/notes.txt", "keep me\n");
    return Row{{"run", config_file(d, small_config()), "--profile-out", d + "/prof"},
               {"--profile-out '" + d + "/prof'", "bnsim did not write there (notes.txt)"}, 30};
})
BAD_INPUT("run --profile-out into a folder holding a subfolder", [](const std::string& d) {
    mkdir((d + "/prof").c_str(), 0755);
    mkdir((d + "/prof/sub").c_str(), 0755);
    return Row{{"run", config_file(d, small_config()), "--profile-out", d + "/prof"},
               {"--profile-out '" + d + "/prof'", "bnsim did not write there (sub)"}, 30};
})

// ---- calibration YAML as measured data -------------------------------------------------------------
BAD_INPUT("calibration YAML as measured data that is a FIFO is refused without blocking", [](const std::string& d) {
    REQUIRE(mkfifo((d + "/m.yaml").c_str(), 0600) == 0);
    return Row{{"compare", d + "/m.yaml"}, {d + "/m.yaml: is a FIFO", "expected a YAML measurements file"}, 10};
})
BAD_INPUT("calibration YAML as measured data linked to /dev/zero", [](const std::string& d) {
    REQUIRE(symlink("/dev/zero", (d + "/m.yaml").c_str()) == 0);
    return Row{{"compare", d + "/m.yaml"}, {d + "/m.yaml: is a device", "expected a YAML measurements file"}, 10};
})
BAD_INPUT("calibration YAML row whose set names an unknown key", [](const std::string& d) {
    return apps_compare(d, "m.yaml", "rows:\n  - {id: X1, config: " + apps_small_config +
                                         ", metric: latency_ns, measured: 10, source: 'a long enough source', third_party: false, "
                                         "uncertainty: none, set: {nosuch.k: 1}}\n",
                        {d + "/m.yaml", "X1", "key nosuch.k", "unknown key"});
})
BAD_INPUT("calibration YAML row whose set value the config rejects", [](const std::string& d) {
    return apps_compare(d, "m.yaml", "rows:\n  - {id: X1, config: " + apps_small_config +
                                         ", metric: latency_ns, measured: 10, source: 'a long enough source', third_party: false, "
                                         "uncertainty: none, set: {vector_add.free: abc}}\n",
                        {d + "/m.yaml", "X1", "key vector_add.free", "got 'abc'"});
})

// ---- latency tables ------------------------------------------------------------------------------
BAD_INPUT("latency table p50 1e10 us is past any kernel", [](const std::string& d) {
    return apps_compare(d, "lat.txt", "run: vector_add.free=2\nconfig: " + apps_small_config + "\np50: 1e10 us\n",
                        {d + "/lat.txt:3:", "field 'p50'", "expected a latency in (0, 1e9] us", "'1e10 us'"});
})
BAD_INPUT("latency table p50 1e308 s", [](const std::string& d) {
    return apps_compare(d, "lat.txt", "run: vector_add.free=2\nconfig: " + apps_small_config + "\np50: 1e308 s\n",
                        {d + "/lat.txt:3:", "field 'p50'", "expected a latency in (0, 1e9] us", "'1e308 s'"});
})
BAD_INPUT("latency table starting with a byte-order mark is read as a latency table", [](const std::string& d) {
    return apps_compare(d, "lat.txt", "\xEF\xBB\xBFrun: vector_add.free=2\nconfig: " + apps_small_config + "\np50: fast us\n",
                        {d + "/lat.txt:3:", "field 'p50'", "expected a number, got 'fast'"});
})
BAD_INPUT("latency table of 10001 runs is refused before any simulation", [](const std::string& d) {
    std::string text;
    for (int i = 0; i < 10001; ++i) text += "run:\np50: 186 us\n";
    return apps_compare(d, "lat.txt", text, {d + "/lat.txt:20001:", "more than 10000 run: blocks"});
})
BAD_INPUT("latency table run key of 50000 characters", [](const std::string& d) {
    return apps_compare(d, "lat.txt", "run: " + std::string(50000, 'k') + "=1\nconfig: " + apps_small_config + "\np50: 186 us\n",
                        {d + "/lat.txt:1:", "(50000 characters)", "unknown key"});
})
BAD_INPUT("latency table run value the config rejects names the key", [](const std::string& d) {
    return apps_compare(d, "lat.txt", "run: vector_add.free=abc\nconfig: " + apps_small_config + "\np50: 186 us\n",
                        {d + "/lat.txt:1:", "key vector_add.free", "expected an integer in [1, 16777216], got 'abc'"});
})

// ---- found by the rows above, fixed after them ----------------------------------------------------
BAD_INPUT("calibration YAML that is a list is read as calibration data, not probed as a profile", [](const std::string& d) {
    return apps_compare(d, "x.yaml", "- a\n", {d + "/x.yaml:1:1", "expected a mapping of keys, got a list"});
})
BAD_INPUT("latency table run block with its id twice", [](const std::string& d) {
    return apps_compare(d, "lat.txt", "run: vector_add.free=2\nid: a\nid: b\np50: 186 us\n", {d + "/lat.txt:3:", "field 'id'", "given twice in one run"});
})
BAD_INPUT("latency table percentile p500 is not a percentile", [](const std::string& d) {
    return apps_compare(d, "lat.txt", "run: vector_add.free=2\np50: 186 us\np500: 190 us\n",
                        {d + "/lat.txt:3:", "field 'p500'", "unknown line"});
})
BAD_INPUT("measured CSV latency written in hex", [](const std::string& d) {
    return Row{{"compare", apps_latency_csv(d, "0x10")}, {d + "/m.csv:2:", "field 'latency_us'", "expected a number, got '0x10'"}, 10};
})
BAD_INPUT("run --profile-out on a symlink to nothing is refused before the run", [](const std::string& d) {
    symlink((d + "/nowhere").c_str(), (d + "/prof").c_str());
    return Row{{"run", apps_small_config, "--profile-out", d + "/prof"}, {"--profile-out", "/prof", "a symlink to no folder"}, 10};
})
BAD_INPUT("a trace larger than the machine can simulate is refused before it is made", [](const std::string&) {
    // 2^31 elements in tiles of 128 x 1: 67 million instructions (e24c574 allocated until killed).
    return Row{{"run", apps_small_config, "--set", "vector_add.n=2147483648", "--set", "vector_add.free=1"},
               {"m4_vector_add_free2.yaml", "vector_add", "the trace would have up to 67108864 instructions", "allowed on this machine"},
               30};
})
BAD_INPUT("sweep --out whose lock cannot be made is blamed on the folder, not on another sweep", [](const std::string& d) {
    mkdir((d + "/o").c_str(), 0755);
    mkdir((d + "/o/.lock").c_str(), 0755);  // the lock file's name taken by a folder
    return Row{{"sweep", apps_sweep_file(d, "  vector_add.free: [200]\n"), "--out", d + "/o"},
               {d + "/o", "cannot write in the output folder"}, 10};
})
BAD_INPUT("an unknown run-config key suggests the near one", [](const std::string&) {
    return Row{{"trace", apps_default_config, "--set", "shape.c=3"}, {"--set shape.c", "unknown key", "did you mean 'shape.C'?"}, 10};
})

// ---- tune ----------------------------------------------------------------------------------------
BAD_INPUT("tune --confirm 0", [](const std::string& d) {
    return Row{{"tune", config_file(d, small_config()), "--confirm", "0"}, {"--confirm", "expected an integer in [1, 64]", "got '0'"}, 30};
})
BAD_INPUT("tune --axis value the config rejects names the --axis", [](const std::string& d) {
    return Row{{"tune", config_file(d, small_config()), "--axis", "memory.interleave=two"},
               {"--axis memory.interleave", "key 'memory.interleave'", "got 'two'"}, 30};
})
BAD_INPUT("tune grid of more than 2000 configs is refused with its count before any is made", [](const std::string& d) {
    return Row{{"tune", config_file(d, small_config()), "--axis", "shape.C=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16",
                "--axis", "shape.B=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16"},
               {"tune", "the grid is 1 x 8 x 2 x 16 x 16 = 4096 configs", "expected at most 2000"}, 10};
})
BAD_INPUT("tune of an NKI kernel that declares no axes asks for --axis", [](const std::string& d) {
    return Row{{"tune", nki_row_config(d, "@nki.jit\ndef k(a):\n    return a\n")},
               {"run.yaml", "declares no decisions to tune", "--axis KEY=V1,V2"}, 30};
})
BAD_INPUT("tune: an NKI tune axis must name one of the config's args", [](const std::string& d) {
    nki_row_config(d, "@nki.jit\ndef k(a, n=2):\n    return a\n");
    return Row{{"tune", config_file(d, "hardware: " + kHwPreset + "\nkernel: nki\nnki:\n  source: kern.py\n  function: k\n"
                                       "  args: {a: {shape: [128, 512], dtype: float32}, n: 2}\n  tune: {m: [1, 2]}\n")},
               {"run.yaml:7", "nki.tune", "'m' is not one"}, 30};
})
BAD_INPUT("tune: an NKI tune axis over a tensor arg is refused", [](const std::string& d) {
    nki_row_config(d, "@nki.jit\ndef k(a):\n    return a\n");
    return Row{{"tune", config_file(d, "hardware: " + kHwPreset + "\nkernel: nki\nnki:\n  source: kern.py\n  function: k\n"
                                       "  args: {a: {shape: [128, 512], dtype: float32}}\n  tune: {a: [1, 2]}\n")},
               {"run.yaml:7", "nki.tune.a", "a scalar arg"}, 30};
})
BAD_INPUT("tune: an NKI tune axis needs a list of values", [](const std::string& d) {
    nki_row_config(d, "@nki.jit\ndef k(a, n=2):\n    return a\n");
    return Row{{"tune", config_file(d, "hardware: " + kHwPreset + "\nkernel: nki\nnki:\n  source: kern.py\n  function: k\n"
                                       "  args: {a: {shape: [128, 512], dtype: float32}, n: 2}\n  tune: {n: 4}\n")},
               {"run.yaml:7", "nki.tune.n", "a list of 1 to 64 values"}, 30};
})
