// The streamed validation (HBM paged, channel tiles checked as they finish) against the run that
// holds its tensors whole: the same figures, every output row handed over once, and the refusals.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <random>

#include <nlohmann/json.hpp>

#include "cli_run.h"
#include "kernels/batch_norm_bwd/numerics/inputs.h"
#include "numerics/comparison.h"
#include "numerics/execution_order.h"
#include "numerics/hbm_pages.h"
#include "numerics_test_util.h"

using namespace bnsim;
using namespace bnsim::num;
using namespace bnsim::bn;
using test::small;

namespace {

void require_same_metrics(const ErrorMetrics& a, const ErrorMetrics& b) {
    CHECK(a.max_abs_err == b.max_abs_err);
    CHECK(a.max_rel_err == b.max_rel_err);
    CHECK(a.rel_l2_err == b.rel_l2_err);
    CHECK(a.max_abs_ref == b.max_abs_ref);
}

// Every figure of the two results, bit for bit.
void require_same(const ValidateResult& a, const ValidateResult& b) {
    for (auto [x, y] : {std::pair{&a.dx, &b.dx}, {&a.dgamma, &b.dgamma}, {&a.dbeta, &b.dbeta}}) {
        INFO(x->name);
        require_same_metrics(x->kernel, y->kernel);
        require_same_metrics(x->oracle, y->oracle);
        CHECK(x->kernel_vs_oracle_rel_l2 == y->kernel_vs_oracle_rel_l2);
        CHECK(x->tol_rel_l2 == y->tol_rel_l2);
        CHECK(x->tol_max_abs == y->tol_max_abs);
        CHECK(x->kernel_err_over_tol == y->kernel_err_over_tol);
        CHECK(x->oracle_err_over_tol == y->oracle_err_over_tol);
        CHECK(x->kernel_pass == y->kernel_pass);
        CHECK(x->oracle_pass == y->oracle_pass);
    }
    CHECK(a.mask.mode == b.mask.mode);
    CHECK(a.mask.flips == b.mask.flips);
    CHECK(a.mask.flips_outside_kink == b.mask.flips_outside_kink);
    CHECK(a.mask.oracle_flips == b.mask.oracle_flips);
    CHECK(a.mask.captured == b.mask.captured);
    CHECK(a.mask.max_abs_forward_flipped == b.mask.max_abs_forward_flipped);
    CHECK(a.mask.oracle_max_abs_forward_flipped == b.mask.oracle_max_abs_forward_flipped);
    CHECK(a.hazards.size() == b.hazards.size());
    CHECK(a.dependency_edges_checked == b.dependency_edges_checked);
    CHECK(a.instructions == b.instructions);
    CHECK(a.out_dgamma == b.out_dgamma);
    CHECK(a.out_dbeta == b.out_dbeta);
    CHECK(a.pass == b.pass);
}

}  // namespace

TEST_CASE("DeferredMaxRel gives the largest relative error above a floor chosen afterwards", "[numerics][streaming]") {
    std::mt19937_64 g(12);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<std::pair<double, double>> pairs;
    for (int i = 0; i < 20000; ++i) {
        const double a = std::exp(u(g) * 14.0 - 10.0);  // |ref| over six decades
        double r = u(g) * 1e-3 / std::sqrt(a);         // errors larger where |ref| is small
        if (i % 997 == 0) r = std::numeric_limits<double>::quiet_NaN();
        pairs.push_back({i % 1009 == 0 ? 0.0 : a, r});
    }
    const double lowest = 1e-5;
    DeferredMaxRel d(lowest);
    for (const auto& [a, r] : pairs) d.add(a, r);
    for (double floor : {1e-5, 3e-5, 1e-3, 0.02, 0.5, 7.0, 50.0, 1e6}) {
        double expect = 0;  // the running max of a pass that knew the floor (NaN ignored, as std::max does)
        for (const auto& [a, r] : pairs)
            if (a >= floor && a > 0) expect = std::max(expect, r);
        INFO("floor " << floor);
        CHECK(d.max_above(floor) == expect);
    }
    CHECK(d.steps() < pairs.size() / 20);  // a staircase, not the pairs
}

TEST_CASE("compare_row_pair gives the sums and staircases of adding element by element", "[numerics][streaming]") {
    // Outputs near their references (errors over many decades, exact hits, NaN outputs, zero
    // and tiny references), compared in rows of several lengths (the AVX2 loop takes four
    // elements at a time, the rest one by one).
    std::mt19937_64 g(7);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const size_t n = 30011;
    std::vector<double> rk(n), ro(n);
    std::vector<float> yk(n), yo(n);
    for (size_t i = 0; i < n; ++i) {
        rk[i] = (u(g) - 0.5) * std::exp(u(g) * 16.0 - 8.0);
        ro[i] = i % 5 == 0 ? rk[i] : rk[i] * (1 + 1e-7 * (u(g) - 0.5));
        yk[i] = float(rk[i] * (1 + std::pow(10.0, -1 - 7 * u(g)) * (u(g) - 0.5)));
        yo[i] = float(ro[i]);
        if (i % 331 == 0) rk[i] = ro[i] = 0.0;
        if (i % 337 == 0) rk[i] = 1e-310;
        if (i % 1201 == 0) yk[i] = double(rk[i]) == 0 ? 1.0f : float(rk[i]);
        if (i % 2003 == 0) yo[i] = std::numeric_limits<float>::quiet_NaN();
    }
    // The oracle judged against its own reference array, or against the kernel's (one array).
    for (const auto& [shared, lowest] : {std::pair{false, 0.0}, {false, 1e-4}, {true, 0.0}, {true, 1e-4}}) {
        const std::vector<double>& rr = shared ? rk : ro;
        ErrorAccumulator ek, eo;
        DeferredMaxRel rel_k(lowest), rel_o(lowest);
        double se = 0, sq = 0;
        for (size_t j = 0; j < n; ++j) {
            ek.add(yk[j], rk[j]);
            eo.add(yo[j], rr[j]);
            const double d = double(yk[j]) - double(yo[j]);
            se += d * d;
            sq += double(yo[j]) * double(yo[j]);
            rel_k.add(std::fabs(rk[j]), std::fabs(double(yk[j]) - rk[j]) / std::fabs(rk[j]));
            rel_o.add(std::fabs(rr[j]), std::fabs(double(yo[j]) - rr[j]) / std::fabs(rr[j]));
        }
        for (size_t row : {size_t(1), size_t(7), size_t(4096)}) {
            INFO("shared " << shared << ", lowest " << lowest << ", rows of " << row);
            ErrorAccumulator acc_k, acc_o;
            DeferredMaxRel rel_k2(lowest), rel_o2(lowest);
            double se2 = 0, sq2 = 0;
            for (size_t i = 0; i < n; i += row)
                compare_row_pair(yk.data() + i, yo.data() + i, rk.data() + i, rr.data() + i, std::min(row, n - i),
                                 acc_k, acc_o, rel_k2, rel_o2, se2, sq2);
            auto same = [](double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; };  // NaNs too
            for (const auto& [a, b] : {std::pair{&ek, &acc_k}, std::pair{&eo, &acc_o}}) {
                CHECK(same(a->max_abs, b->max_abs));
                CHECK(same(a->sq_err, b->sq_err));
                CHECK(same(a->sq_ref, b->sq_ref));
                CHECK(same(a->max_ref, b->max_ref));
            }
            CHECK(std::isnan(eo.max_abs));  // a NaN output stays visible
            CHECK(same(se2, se));
            CHECK(same(sq2, sq));
            CHECK(rel_k2.steps() == rel_k.steps());
            CHECK(rel_o2.steps() == rel_o.steps());
            for (double floor : {0.0, 1e-300, 1e-5, 1e-3, 0.02, 0.5, 7.0, 50.0, 1e6}) {
                CHECK(rel_k2.max_above(floor) == rel_k.max_above(floor));
                CHECK(rel_o2.max_above(floor) == rel_o.max_above(floor));
            }
        }
    }
}

TEST_CASE("generated columns equal those generate_inputs computes with dy and x_in held", "[numerics][streaming]") {
    for (const Overrides& o : {small(3, 200), small(2, 40, {{"fuse_relu", "true"}, {"relu_mask", "supplied"}})}) {
        const RunConfig cfg = test::numerics_config(o);
        const Params& p = kernel_params<Params>(cfg.kernel_params);
        const BnInputs whole = generate_inputs(p, p.inputs);
        const BnInputs cols = generate_columns(p, p.inputs, 3);
        CHECK(cols.means == whole.means);
        CHECK(cols.variances == whole.variances);
        CHECK(cols.gamma == whole.gamma);
        CHECK(cols.beta == whole.beta);
        CHECK(cols.dy.empty());
        // Rows generated on their own are the held bytes.
        const uint64_t rows = uint64_t(p.shape.B * p.shape.C), rb = uint64_t(p.shape.spatial()) * 2;
        std::vector<uint8_t> x(rows * rb), dy(rows * rb);
        generate_rows(p, p.inputs, kSaltX, 0, rows, x.data());
        for (uint64_t r = 0; r < rows; ++r) generate_rows(p, p.inputs, kSaltDy, r, r + 1, dy.data() + r * rb);
        CHECK(std::equal(x.begin(), x.end(), whole.x_in.bytes.begin()));
        CHECK(std::equal(dy.begin(), dy.end(), whole.dy.bytes.begin()));
        if (p.uses_mask()) {
            std::vector<uint8_t> m(rows * uint64_t(p.shape.spatial()));
            mask_rows(p, cols, 0, rows, x.data(), m.data());
            CHECK(std::equal(m.begin(), m.end(), whole.relu_mask.begin()));
        }
    }
}

TEST_CASE("a streamed validation gives the figures of the run that holds its tensors whole", "[numerics][streaming]") {
    const std::vector<std::pair<const char*, Overrides>> cases = {
        {"two channel tiles, one partial", small(3, 200)},
        {"recomputed mask over three tiles", small(2, 300, {{"fuse_relu", "true"}})},
        {"supplied mask", small(4, 130, {{"fuse_relu", "true"}, {"relu_mask", "supplied"}})},
        {"fp32", small(2, 130, {{"dtype", "float32"}})},
        {"lnc 2 channel sharding", small(2, 256, {{"lnc", "2"}})},
        {"lnc 2 batch sharding with a mask", small(6, 100, {{"lnc", "2"}, {"fuse_relu", "true"}})},
        {"replicated partitions", small(6, 32)},
        {"direct_x in HBM, small tiles",
         small(4, 130, {{"memory.f_tile", "128"}, {"memory.interleave", "3"}, {"memory.direct_x_residency", "false"}})},
        {"a failing what-if", small(8, 140, {{"numerics.precision.dyx_product", "bfloat16"}, {"numerics.x_in.mean", "20"}})},
    };
    for (const auto& [name, o] : cases) {
        for (int order = 0; order < 2; ++order) {
            const Runner run = order == 0 ? Runner(run_sequential) : Runner(run_dataflow);
            INFO(name << (order == 0 ? ", sequential" : ", dataflow"));
            const RunConfig cfg = test::numerics_config(o);
            const GeneratedKernel k = cfg.generate();
            const Params& p = kernel_params<Params>(cfg.kernel_params);
            const ValidateOptions vo = test::validate_options(cfg);
            const ValidateResult whole = validate_batch_norm_bwd(k.trace, p, generate_inputs(p, p.inputs), vo, run);
            const ValidateResult streamed = validate_streamed(k.trace, p, generate_columns(p, p.inputs), vo, run);
            require_same(whole, streamed);
            CHECK(streamed.out_dx_bytes.empty());
        }
    }
}

TEST_CASE("HBM pages hand over every output row once and end holding nothing", "[numerics][streaming]") {
    const RunConfig cfg = test::numerics_config(small(4, 300, {{"memory.direct_x_residency", "false"}}));
    const GeneratedKernel k = cfg.generate();
    const ExecutionOrder order = record_order(k.trace, run_sequential);
    REQUIRE(order.size() == 2 * k.trace.instructions().size());
    std::map<uint32_t, std::vector<int>> seen;  // per output tensor: times each row was handed over
    HbmStreamIO io;
    io.take_output = [&](const HbmTensor& t, uint64_t lo, uint64_t hi, std::unique_ptr<uint8_t[]>& page) {
        CHECK(page == nullptr);  // pages without data
        auto& v = seen[t.id];
        v.resize(size_t(t.rows), 0);
        for (uint64_t r = lo; r < hi; ++r) ++v[size_t(r)];
    };
    HbmPages pages(k.trace, io, false);
    uint64_t whole = 0;
    for (const auto& t : k.trace.tensors()) whole += t.bytes();
    for (const ExecutionEvent& e : order) {
        const Instruction& in = k.trace.instructions()[e.id];
        if (e.start) pages.acquire(in);
        else pages.release(in);
    }
    pages.flush();
    CHECK(pages.resident_bytes() == 0);
    CHECK(pages.peak_bytes() > 0);
    // In program order the scratch direct_x lives across the phases (all of it at their
    // boundary), the inputs only while read, dx from its first write to its last.
    const uint64_t direct_x = k.trace.find_tensor("direct_x", 0)->bytes(), dx = k.trace.find_tensor("dx")->bytes();
    CHECK(pages.peak_bytes() >= direct_x);
    CHECK(pages.peak_bytes() < direct_x + dx);
    CHECK(pages.peak_bytes() < whole / 2);
    for (const auto& t : k.trace.tensors()) {
        if (!t.is_output) continue;
        INFO(t.name);
        REQUIRE(seen.count(t.id) == 1);
        CHECK(std::all_of(seen[t.id].begin(), seen[t.id].end(), [](int n) { return n == 1; }));
    }
}

TEST_CASE("bnsim validate streamed in the timing order prints the figures of the whole run", "[numerics][streaming][cli]") {
    const std::string cfg = std::string(BNSIM_SOURCE_DIR) + "/configs/default.yaml";
    for (const std::string shape : {"--set shape.B=4 --set shape.C=200 --set shape.H=16 --set shape.W=16",
                                    "--set shape.B=4 --set shape.C=40 --set shape.H=16 --set shape.W=16 "
                                    "--set fuse_relu=true --set lnc=2"}) {
        INFO(shape);
        const test::CliResult whole = test::run_bnsim_words("validate " + cfg + " " + shape + " --json");
        const test::CliResult streamed =
            test::run_bnsim_words("validate " + cfg + " " + shape + " --set numerics.streaming=always --json");
        REQUIRE(whole.exit_code == 0);
        REQUIRE(streamed.exit_code == 0);
        nlohmann::json a = nlohmann::json::parse(whole.out), b = nlohmann::json::parse(streamed.out);
        CHECK(a.at("memory_mode") == "whole");
        CHECK(b.at("memory_mode") == "streamed");
        for (const char* k : {"memory_mode", "memory_bytes_estimate", "provenance"}) {
            a.erase(k);
            b.erase(k);
        }
        CHECK(a == b);
    }
}

TEST_CASE("validate streams when the whole tensors exceed the limit and refuses what cannot fit streamed", "[numerics][streaming][cli]") {
    const std::string cfg = std::string(BNSIM_SOURCE_DIR) + "/configs/default.yaml";
    const std::string shape = " --set shape.B=4 --set shape.C=200 --set shape.H=32 --set shape.W=32";
    const test::CliResult whole = test::run_bnsim_words("validate " + cfg + shape + " --json");
    const test::CliResult streamed = test::run_bnsim_words("validate " + cfg + shape + " --set numerics.streaming=always --json");
    REQUIRE(whole.exit_code == 0);
    REQUIRE(streamed.exit_code == 0);
    const uint64_t need_whole = nlohmann::json::parse(whole.out).at("memory_bytes_estimate").get<uint64_t>();
    const uint64_t need_streamed = nlohmann::json::parse(streamed.out).at("memory_bytes_estimate").get<uint64_t>();
    REQUIRE(need_streamed < need_whole);
    SECTION("a limit between the two streams") {
        const std::string limit = std::to_string((need_whole + need_streamed) / 2);
        const test::CliResult r =
            test::run_bnsim_words("validate " + cfg + shape + " --set numerics.memory_limit_bytes=" + limit + " --json");
        REQUIRE(r.exit_code == 0);
        CHECK(nlohmann::json::parse(r.out).at("memory_mode") == "streamed");
    }
    SECTION("streaming: never refuses it") {
        const std::string limit = std::to_string((need_whole + need_streamed) / 2);
        const test::CliResult r = test::run_bnsim_words("validate " + cfg + shape + " --set numerics.memory_limit_bytes=" +
                                                        limit + " --set numerics.streaming=never");
        CHECK(r.exit_code == 2);
        CHECK(r.err.find(std::to_string(need_whole) + " bytes") != std::string::npos);
    }
    SECTION("below the streamed estimate it is refused, naming both estimates and the limit") {
        const std::string limit = std::to_string(need_streamed - 1);
        const test::CliResult r =
            test::run_bnsim_words("validate " + cfg + shape + " --set numerics.memory_limit_bytes=" + limit);
        CHECK(r.exit_code == 2);
        CHECK(r.out.empty());
        CHECK(r.err.find(std::to_string(need_whole) + " bytes") != std::string::npos);
        CHECK(r.err.find(std::to_string(need_streamed) + " bytes") != std::string::npos);
        CHECK(r.err.find("only " + limit + " bytes") != std::string::npos);
    }
    SECTION("whole-tensor files are refused when streaming") {
        const std::string dir = test::make_temp_dir("bnsim_stream_out");
        const test::CliResult r = test::run_bnsim_words("validate " + cfg + shape +
                                                        " --set numerics.streaming=always --outputs " + dir);
        CHECK(r.exit_code == 2);
        CHECK(r.err.find("--outputs") != std::string::npos);
    }
    SECTION("an unknown streaming mode is a config error") {
        const test::CliResult r = test::run_bnsim_words("validate " + cfg + shape + " --set numerics.streaming=sometimes");
        CHECK(r.exit_code == 2);
        CHECK(r.err.find("streaming") != std::string::npos);
    }
}
