// .npy reading and writing: round trips, and errors that name the file.
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>

#include "sim/config/run_config.h"
#include "kernels/batch_norm_bwd/numerics/inputs.h"
#include "numerics/npy.h"
#include "numerics_test_util.h"

using namespace bnsim;
using namespace bnsim::num;
using namespace bnsim::bn;

namespace {

// Plain (non-atomic) writers: tests make fixture files, bnsim writes through OutputFile.
void write_npy(const std::string& path, const std::vector<int64_t>& shape, const float* data) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    num::write_npy(f, shape, data);
    REQUIRE(f.good());
}

void write_npy(const std::string& path, const std::vector<int64_t>& shape, const uint8_t* data, NpyType t) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    num::write_npy(f, shape, data, t);
    REQUIRE(f.good());
}

void write_inputs(const std::string& dir, const BnInputs& in) {
    for (const auto& f : input_files(in)) {
        std::ofstream o(dir + "/" + f.name, std::ios::binary | std::ios::trunc);
        f.write(o);
        REQUIRE(o.good());
    }
}

std::string temp_dir() {
    char tmpl[] = "/tmp/bnsim_npy_XXXXXX";
    const char* d = mkdtemp(tmpl);
    REQUIRE(d != nullptr);
    return d;
}

}  // namespace

TEST_CASE("npy: float32, uint8 and bool round trip", "[numerics][npy]") {
    const std::string dir = temp_dir();
    const std::vector<float> f = {1.5f, -2.25f, 3.0e-8f, 65504.0f, 0.0f, -0.0f};
    write_npy(dir + "/f.npy", {2, 3}, f.data());
    NpyArray a = read_npy(dir + "/f.npy");
    CHECK(a.type == NpyType::f32);
    CHECK(a.shape == std::vector<int64_t>{2, 3});
    CHECK(a.f32 == f);

    const std::vector<uint8_t> u = {0, 1, 255, 7};
    write_npy(dir + "/u.npy", {4}, u.data(), NpyType::u8);
    NpyArray b = read_npy(dir + "/u.npy");
    CHECK(b.type == NpyType::u8);
    CHECK(b.shape == std::vector<int64_t>{4});
    CHECK(b.u8 == u);

    const std::vector<uint8_t> m = {1, 0, 0, 1, 1, 0};
    write_npy(dir + "/m.npy", {1, 2, 1, 3, 1}, m.data(), NpyType::boolean);
    NpyArray c = read_npy(dir + "/m.npy");
    CHECK(c.type == NpyType::boolean);
    CHECK(c.shape == std::vector<int64_t>{1, 2, 1, 3, 1});
    CHECK(c.u8 == m);

    // The header is padded to a 64-byte boundary, as numpy writes it.
    std::ifstream in(dir + "/f.npy", std::ios::binary | std::ios::ate);
    CHECK((size_t(in.tellg()) - f.size() * 4) % 64 == 0);
}

TEST_CASE("npy: errors name the file", "[numerics][npy]") {
    const std::string dir = temp_dir();
    CHECK_THROWS_WITH(read_npy(dir + "/none.npy"), Catch::Contains(dir + "/none.npy") && Catch::Contains("cannot open"));
    {
        std::ofstream f(dir + "/bad.npy", std::ios::binary);
        f << "not numpy at all";
    }
    CHECK_THROWS_WITH(read_npy(dir + "/bad.npy"), Catch::Contains("bad.npy") && Catch::Contains("not a .npy"));
    {
        // A float64 array, hand-written.
        std::string h = "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }";
        h.append(64 - (10 + h.size() + 1) % 64, ' ');
        h += '\n';
        std::ofstream f(dir + "/f8.npy", std::ios::binary);
        f.write("\x93NUMPY\x01\x00", 8);
        const char lb[2] = {char(h.size() & 0xff), char(h.size() >> 8)};
        f.write(lb, 2);
        f << h;
        const double v = 1.0;
        f.write(reinterpret_cast<const char*>(&v), 8);
    }
    CHECK_THROWS_WITH(read_npy(dir + "/f8.npy"), Catch::Contains("f8.npy") && Catch::Contains("'<f8'"));
    // Truncated data.
    const std::vector<float> f = {1, 2, 3, 4};
    write_npy(dir + "/t.npy", {4}, f.data());
    truncate((dir + "/t.npy").c_str(), 128 + 8);
    CHECK_THROWS_WITH(read_npy(dir + "/t.npy"), Catch::Contains("t.npy") && Catch::Contains("truncated"));
}

TEST_CASE("npy: batch_norm_bwd inputs round trip and are checked against the run", "[numerics][npy]") {
    const std::string dir = temp_dir();
    RunConfig cfg = test::numerics_config(test::small(2, 3, {{"fuse_relu", "true"}, {"relu_mask", "supplied"}}));
    const bn::Params& p = kernel_params<bn::Params>(cfg.kernel_params);
    BnInputs a = generate_inputs(p, p.inputs);
    write_inputs(dir, a);
    BnInputs b = read_inputs(dir, p);
    CHECK(a.dy.dtype == b.dy.dtype);
    CHECK(std::vector<uint8_t>(a.dy.bytes.begin(), a.dy.bytes.end()) == std::vector<uint8_t>(b.dy.bytes.begin(), b.dy.bytes.end()));
    CHECK(std::vector<uint8_t>(a.x_in.bytes.begin(), a.x_in.bytes.end()) ==
          std::vector<uint8_t>(b.x_in.bytes.begin(), b.x_in.bytes.end()));
    CHECK(a.means == b.means);
    CHECK(a.variances == b.variances);
    CHECK(a.gamma == b.gamma);
    CHECK(a.beta == b.beta);
    CHECK(std::vector<uint8_t>(a.relu_mask.begin(), a.relu_mask.end()) ==
          std::vector<uint8_t>(b.relu_mask.begin(), b.relu_mask.end()));

    // dy and x_in arrive as float32 and are rounded to the run's dtype (bf16, nearest even).
    std::vector<float> dy(b.dy.size());
    b.dy.load(0, dy.size(), dy.data());
    dy[0] = 1.00390625f;  // halfway: rounds to 1.0
    dy[1] = 1.01171875f;  // halfway: rounds up to even
    write_npy(dir + "/dy.npy", {2, 3, 1, 16, 16}, dy.data());
    BnInputs c = read_inputs(dir, p);
    CHECK(c.dy[0] == 1.0f);
    CHECK(c.dy[1] == 1.015625f);

    // A shape that does not match the run, a wrong dtype, a missing file: errors naming the file.
    write_npy(dir + "/gamma.npy", {4, 1}, dy.data());
    CHECK_THROWS_WITH(read_inputs(dir, p), Catch::Contains("gamma.npy") && Catch::Contains("[4, 1]"));
    write_inputs(dir, a);
    std::vector<uint8_t> m(a.relu_mask.begin(), a.relu_mask.end());
    write_npy(dir + "/dy.npy", {2, 3, 1, 16, 16}, m.data(), NpyType::u8);
    CHECK_THROWS_WITH(read_inputs(dir, p), Catch::Contains("dy.npy") && Catch::Contains("float32 is expected"));
    write_inputs(dir, a);
    const std::vector<float> wide(2 * 3 * 16 * 17, 0.5f);
    write_npy(dir + "/x_in.npy", {2, 3, 16, 17}, wide.data());
    CHECK_THROWS_WITH(read_inputs(dir, p), Catch::Contains("x_in.npy") && Catch::Contains("does not match"));
    write_inputs(dir, a);
    std::remove((dir + "/relu_mask.npy").c_str());
    CHECK_THROWS_WITH(read_inputs(dir, p), Catch::Contains("relu_mask.npy") && Catch::Contains("missing"));
    // A bool mask is accepted as well as uint8.
    write_npy(dir + "/relu_mask.npy", {2, 3, 1, 16, 16}, m.data(), NpyType::boolean);
    CHECK(read_inputs(dir, p).relu_mask.size() == m.size());
}
