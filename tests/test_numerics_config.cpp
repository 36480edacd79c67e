// The `numerics:` config section and the `bnsim validate` command line.
#include <catch2/catch.hpp>

#include <array>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "kernels/batch_norm_bwd/params.h"
#include "sim/config/run_config.h"
#include "numerics/npy.h"
#include "numerics_test_util.h"
#include "tests/source_paths.h"

using namespace bnsim;

namespace {

std::string write_numerics_config(const std::string& body) {
    char tmpl[] = "/tmp/bnsim_numcfg_XXXXXX";
    const int fd = mkstemp(tmpl);
    REQUIRE(fd >= 0);
    close(fd);
    std::ofstream(tmpl) << body;
    return tmpl;
}

struct CmdResult {
    int status = 0;
    std::string out;
};

CmdResult run_bnsim_line(const std::string& args) {
    const std::string cmd = std::string(BNSIM_BINARY) + " " + args + " 2>&1";
    CmdResult r;
    FILE* p = popen(cmd.c_str(), "r");
    REQUIRE(p != nullptr);
    std::array<char, 4096> buf;
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
    const int st = pclose(p);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return r;
}

const std::string kSmallShape = " --set shape.B=2 --set shape.C=64 --set shape.H=8 --set shape.W=8";

}  // namespace

TEST_CASE("numerics config: defaults and every key", "[numerics][config]") {
    RunConfig d = test::numerics_config({});
    const bn::Params& dp = kernel_params<bn::Params>(d.kernel_params);
    CHECK_FALSE(d.numerics.present);
    CHECK(dp.inputs.seed == 1);
    CHECK(dp.dyx_dtype == DType::fp32);
    CHECK(dp.compute_dtype == DType::bf16);
    CHECK_FALSE(d.numerics.scale_bias_operand_bits.has_value());
    CHECK(d.hw.numerics.scale_bias_operand_bits == 18);

    const std::string f = write_numerics_config(R"(kernel: batch_norm_bwd
shape: {B: 2, C: 3, H: 4, W: 5}
numerics:
  seed: 42
  x_in: {distribution: uniform, mean: 5.0, spread: 0.5}
  dy: {mean: 0.1, spread: 2.0}
  gamma: {min: 0.9, max: 1.1}
  beta: {min: -0.1, max: 0.2}
  precision: {dyx_product: bfloat16, intermediates: float32, scale_bias_operand_bits: 20}
  tolerances: {scale: 2.0, relu_kink: 1.0e-6}
  memory_limit_bytes: 1000000000
)");
    RunConfig c = load_run_config(f);
    const bn::Params& cp = kernel_params<bn::Params>(c.kernel_params);
    CHECK(c.numerics.present);
    CHECK(cp.inputs.seed == 42);
    CHECK(cp.inputs.x_in.kind == num::Distribution::uniform);
    CHECK(cp.inputs.x_in.mean == 5.0);
    CHECK(cp.inputs.dy.kind == num::Distribution::normal);
    CHECK(cp.inputs.dy.spread == 2.0);
    CHECK(cp.inputs.gamma_hi == 1.1);
    CHECK(cp.inputs.beta_lo == -0.1);
    CHECK(*c.numerics.scale_bias_operand_bits == 20);
    CHECK(c.numerics.tolerance_scale == 2.0);
    CHECK(cp.relu_kink == 1e-6);
    CHECK(c.numerics.memory_limit_bytes == 1000000000u);
    // The kernel-side what-ifs reach the generator's parameters.
    CHECK(kernel_params<bn::Params>(c.kernel_params).dyx_dtype == DType::bf16);
    CHECK(kernel_params<bn::Params>(c.kernel_params).compute_dtype == DType::fp32);
    std::remove(f.c_str());
}

TEST_CASE("numerics config: unknown keys and bad values name the file, line and key", "[numerics][config]") {
    const std::string f = write_numerics_config("kernel: batch_norm_bwd\nshape: {B: 2, C: 3, H: 4, W: 5}\nnumerics:\n  seed: 3\n"
                                       "  x_in: {mean: 1, sprd: 2}\n");
    CHECK_THROWS_WITH(load_run_config(f), Catch::Contains(f + ":5:") && Catch::Contains("numerics.x_in.sprd") &&
                                              Catch::Contains("unknown key"));
    std::remove(f.c_str());
    CHECK_THROWS_WITH(test::numerics_config({{"numerics.precision.dyx_product", "fp16"}}),
                      Catch::Contains("numerics.precision.dyx_product") && Catch::Contains("bfloat16"));
    CHECK_THROWS_WITH(test::numerics_config({{"numerics.gamma.min", "2"}, {"numerics.gamma.max", "1"}}),
                      Catch::Contains("numerics.gamma.max"));
    CHECK_THROWS_WITH(test::numerics_config({{"numerics.precision.scale_bias_operand_bits", "30"}}),
                      Catch::Contains("numerics.precision.scale_bias_operand_bits"));
    CHECK_THROWS_WITH(test::numerics_config({{"numerics.tolerance", "{scale: 1}"}}), Catch::Contains("unknown key"));
}

TEST_CASE("bnsim validate: --json report, outputs and inputs directories", "[numerics][cli]") {
    char tmpl[] = "/tmp/bnsim_validate_XXXXXX";
    const std::string dir = mkdtemp(tmpl);
    CmdResult r = run_bnsim_line("validate " + kDefault + kSmallShape + " --order sequential --json --outputs " + dir +
                      " --save-inputs " + dir);
    INFO(r.out);
    REQUIRE(r.status == 0);
    auto j = nlohmann::json::parse(r.out);
    for (const char* o : {"dx", "dgamma", "dbeta"}) {
        CHECK(j["outputs"][o]["max_abs_err"].is_number());
        CHECK(j["outputs"][o]["rel_l2_err"].is_number());
        CHECK(j["outputs"][o]["max_rel_err"].is_number());
        CHECK(j["outputs"][o]["oracle"]["rel_l2_err"].is_number());
    }
    CHECK(j["relu_mask_flips"] == 0);
    CHECK(j["hazards"] == 0);
    CHECK(j["pass"] == true);
    auto dx = num::read_npy(dir + "/dx.npy");
    CHECK(dx.shape == std::vector<int64_t>{2, 64, 1, 8, 8});
    CHECK(num::read_npy(dir + "/dgamma.npy").shape == std::vector<int64_t>{64, 1});
    CHECK(num::read_npy(dir + "/dbeta.npy").shape == std::vector<int64_t>{64, 1});
    // Feeding the saved inputs back reproduces the same outputs.
    char tmpl2[] = "/tmp/bnsim_validate_XXXXXX";
    const std::string dir2 = mkdtemp(tmpl2);
    CmdResult r2 = run_bnsim_line("validate " + kDefault + kSmallShape + " --order sequential --json --inputs " + dir + " --outputs " + dir2);
    INFO(r2.out);
    REQUIRE(r2.status == 0);
    CHECK(num::read_npy(dir2 + "/dx.npy").f32 == dx.f32);
    CHECK(nlohmann::json::parse(r2.out)["outputs"]["dgamma"]["max_abs_err"] == j["outputs"]["dgamma"]["max_abs_err"]);
}

TEST_CASE("bnsim validate: exit status and refusals", "[numerics][cli]") {
    // Text report.
    CmdResult ok = run_bnsim_line("validate " + kDefault + kSmallShape + " --order sequential");
    INFO(ok.out);
    CHECK(ok.status == 0);
    CHECK_THAT(ok.out, Catch::Contains("PASS") && Catch::Contains("dgamma") && Catch::Contains("hazards:    0"));
    // A what-if that breaks the tolerance: non-zero exit, and the report still printed.
    CmdResult bad = run_bnsim_line("validate " + kDefault + kSmallShape +
                        " --order sequential --set numerics.x_in.mean=20 --set numerics.precision.dyx_product=bfloat16");
    INFO(bad.out);
    CHECK(bad.status == 1);
    CHECK_THAT(bad.out, Catch::Contains("FAIL"));
    // A shape too large for memory is refused before anything is allocated, with the bytes needed.
    CmdResult big = run_bnsim_line("validate " + kDefault + " --set shape.C=512 --set shape.D=16 --set numerics.memory_limit_bytes=1000000000");
    INFO(big.out);
    CHECK(big.status == 2);
    CHECK_THAT(big.out, Catch::Contains("needs about") && Catch::Contains("bytes") && Catch::Contains("1000000000"));
    // Missing input files are named.
    char tmpl[] = "/tmp/bnsim_empty_XXXXXX";
    const std::string empty = mkdtemp(tmpl);
    CmdResult missing = run_bnsim_line("validate " + kDefault + kSmallShape + " --inputs " + empty);
    CHECK(missing.status == 2);
    CHECK_THAT(missing.out, Catch::Contains(empty + "/dy.npy") && Catch::Contains("missing"));
}
