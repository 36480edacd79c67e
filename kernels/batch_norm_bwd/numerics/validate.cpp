#include "kernels/batch_norm_bwd/numerics/validate.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <stdexcept>

#include "kernels/batch_norm_bwd/numerics/mask_probe.h"
#include "kernels/batch_norm_bwd/numerics/oracle.h"
#include "numerics/bf16.h"
#include "numerics/device_memory.h"
#include "numerics/executor.h"
#include "numerics/hbm_io.h"
#include "numerics/npy.h"
#include "numerics/parallel.h"
#include "numerics/runners.h"

namespace bnsim::bn {
namespace {

using num::ErrorAccumulator;
using num::ErrorMetrics;
using num::OutputCheck;

// Laps into the result's phase_seconds.
struct Laps {
    ValidateResult& r;
    num::ValidationResult timing;
    num::StepTimer timer{timing};
    void operator()(const char* what) {
        timer.lap(what);
        r.phase_seconds = timing.phase_seconds;
    }
};

// Runs the trace on the inputs through the executor, the hazard checker and the mask probe;
// fills the result's hazards and outputs, returns the mask the kernel applied (fuse_relu).
std::vector<uint8_t> run_emulated(const Trace& trace, const Params& p, const BnInputs& in, const ValidateOptions& opts,
                                  const num::Runner& run, ValidateResult& res, Laps& lap) {
    const size_t n = size_t(p.shape.elements());
    const size_t C = size_t(p.shape.C);
    num::DeviceMemory mem(trace, opts.partitions, opts.sbuf_bytes_per_partition);
    lap("allocate device memory");
    num::put_tensor(mem, trace, "dy", in.dy);  // lent, not copied
    num::put_tensor(mem, trace, "x_in", in.x_in);
    num::put_tensor(mem, trace, "means", in.means.data(), C);
    num::put_tensor(mem, trace, "variances", in.variances.data(), C);
    num::put_tensor(mem, trace, "gamma", in.gamma.data(), C);
    num::put_tensor(mem, trace, "beta", in.beta.data(), C);
    if (const HbmTensor* m = trace.find_tensor("relu_mask")) {
        if (in.relu_mask.size() != n) throw std::logic_error("numerics: the run needs a relu_mask input");
        if (!mem.borrow(m->id, in.relu_mask.data(), n)) std::memcpy(mem.hbm(m->id).data(), in.relu_mask.data(), n);
    }
    lap("load inputs");
    num::ExecutorOptions eo;
    eo.scale_bias_operand_bits = opts.scale_bias_operand_bits;
    num::FunctionalExecutor ex(mem, eo);
    num::HazardChecker hz(trace);
    MaskProbe probe(ex, p);
    num::ObserverFanout fan;
    fan.add(&hz);
    fan.add(&probe);
    fan.add(&ex);
    lap("derive true dependencies");
    run(trace, fan);
    lap("execute trace");
    res.hazards = hz.check();
    res.dependency_edges_checked = hz.edges_checked();
    res.instructions = ex.finished();
    const HbmTensor* tdx = trace.find_tensor("dx");
    if (!tdx) throw std::logic_error("numerics: the trace has no dx tensor");
    res.out_dx_dtype = tdx->dtype;
    res.out_dx_bytes = std::move(mem.hbm(tdx->id));
    res.out_dgamma = num::get_tensor(mem, trace, "dgamma");
    res.out_dbeta = num::get_tensor(mem, trace, "dbeta");
    std::vector<uint8_t> applied = probe.take_mask();
    lap("check hazards");
    return applied;
}

oracle::Problem oracle_problem(const Params& p, const BnInputs& in) {
    oracle::Problem pr;
    pr.B = p.shape.B;
    pr.C = p.shape.C;
    pr.S = p.shape.spatial();
    pr.dy = oracle::Values(in.dy.bytes.data(), in.dy.dtype == DType::bf16);
    pr.x = oracle::Values(in.x_in.bytes.data(), in.x_in.dtype == DType::bf16);
    pr.means = in.means.data();
    pr.variances = in.variances.data();
    pr.gamma = in.gamma.data();
    pr.beta = in.beta.data();
    pr.fuse_relu = p.fuse_relu;
    pr.mask = p.uses_mask() ? in.relu_mask.data() : nullptr;
    pr.eps = p.eps;
    return pr;
}

// Elements whose mask flipped at the ReLU kink: judged by their own subgradient in the reference.
struct KinkFlips {
    std::vector<int64_t> kernel, oracle;
};

// Compares the mask the kernel applied (and the float32 oracle's) with the reference's.
KinkFlips check_mask(const Params& p, const BnInputs& in, const ValidateOptions& opts, const oracle::Reference64& ref,
                     const std::vector<uint8_t>& applied, const std::vector<uint8_t>& oracle_mask, MaskCheck& mc) {
    KinkFlips ok;
    const size_t n = size_t(p.shape.elements());
    // A recomputed mask may legitimately flip where the forward output is within what the
    // scale/bias operand path resolves: each of x*scale and bias carries up to 2^-bits of itself
    // (twice that as margin), and never less than the configured relu_kink.
    const double u_op = num::unit_roundoff(std::min(opts.scale_bias_operand_bits, 24));
    auto kink_band = [&](int64_t i) {
        const int64_t c = ref.chan(i);
        const double a = double(in.gamma[size_t(c)]) * ref.rstd(c);
        const double b = double(in.beta[size_t(c)]) - double(in.means[size_t(c)]) * a;
        return std::max(opts.relu_kink, 2.0 * u_op * (std::fabs(double(in.x_in[size_t(i)]) * a) + std::fabs(b)));
    };
    auto oracle_band = [&](size_t i) {
        const int64_t c = ref.chan(int64_t(i));
        return std::max(opts.relu_kink, 4 * num::unit_roundoff(24) * (std::fabs(double(in.x_in[i])) + 1.0) *
                                            ref.rstd(c) * std::fabs(double(in.gamma[size_t(c)])));
    };
    mc.mode = p.mask_supplied ? "supplied" : "recomputed";
    for (size_t i = 0; i < n; ++i) {
        if (applied[i] == 2) continue;
        ++mc.captured;
        const bool rm = ref.mask(int64_t(i));
        if (bool(applied[i]) != rm) {
            ++mc.flips;
            const double f = std::fabs(ref.forward(int64_t(i)));
            mc.max_abs_forward_flipped = std::max(mc.max_abs_forward_flipped, f);
            if (!p.mask_supplied && f <= kink_band(int64_t(i))) ok.kernel.push_back(int64_t(i));
            else ++mc.flips_outside_kink;
        }
        if (!oracle_mask.empty() && bool(oracle_mask[i]) != rm) {
            ++mc.oracle_flips;
            const double f = std::fabs(ref.forward(int64_t(i)));
            mc.oracle_max_abs_forward_flipped = std::max(mc.oracle_max_abs_forward_flipped, f);
            if (f <= oracle_band(i)) ok.oracle.push_back(int64_t(i));
        }
    }
    if (mc.captured != int64_t(n))
        throw std::logic_error("numerics: the mask probe saw " + std::to_string(mc.captured) + " of " +
                               std::to_string(n) + " mask elements");
    return ok;
}

// Unit roundoffs the tolerances are built from.
struct Roundoffs {
    double u32, uc, uo, u_op;
};

Roundoffs roundoffs(const Params& p, const ValidateOptions& opts) {
    Roundoffs u;
    u.u32 = num::unit_roundoff(24);
    u.uc = p.compute_dtype == DType::bf16 ? num::unit_roundoff(8) : u.u32;
    u.uo = p.dtype == DType::bf16 ? num::unit_roundoff(8) : u.u32;
    u.u_op = num::unit_roundoff(std::min(opts.scale_bias_operand_bits, 24));
    return u;
}

// Runs body(c) for every channel on every hardware thread (the oracle's and the comparison's
// work is per channel; results are combined in channel order, the same for any thread count).
void for_each_channel(int64_t C, const std::function<void(int64_t)>& body) {
    num::parallel_for(size_t(C), 0, [&](size_t c) { body(int64_t(c)); });
}

// One channel's (then all channels') dx errors of the kernel and of the oracle.
struct DxErrors {
    ErrorAccumulator k, o;
    double rel_k = 0, rel_o = 0, se_ko = 0, sq_o = 0;
    void merge(const DxErrors& e) {
        k.merge(e.k);
        o.merge(e.o);
        rel_k = std::max(rel_k, e.rel_k);
        rel_o = std::max(rel_o, e.rel_o);
        se_ko += e.se_ko;
        sq_o += e.sq_o;
    }
};

// dx of the kernel and of the float32 oracle against the reference. The reference for each
// implementation differs only at its own kink flips. A first pass finds max|ref| (the floor of
// the relative metric); the second streams the oracle's rows. Both run channel by channel in
// parallel. Returns the oracle's column sums.
oracle::Float32Result check_dx(const Params& p, const ValidateOptions& opts, const oracle::Problem& pr,
                               const oracle::Reference64& ref, const oracle::Coefficients& kk,
                               const oracle::Coefficients& ko, const KinkFlips& flips, ValidateResult& res) {
    const int64_t B = p.shape.B, C = p.shape.C, S = pr.S;
    // Rows of a channel are B rows apart, so each implementation's flip list is entered by
    // binary search.
    auto ref_row = [&](int64_t r, const oracle::Coefficients& cf, const std::vector<int64_t>& fl, double* out) {
        size_t cur = size_t(std::lower_bound(fl.begin(), fl.end(), r * S) - fl.begin());
        ref.dx_row(r, cf, fl, cur, out);
    };
    std::vector<double> max_ref_c(static_cast<size_t>(C), 0.0);
    for_each_channel(C, [&](int64_t c) {
        thread_local std::vector<double> rk;
        rk.resize(size_t(S));
        double m = 0;
        for (int64_t b = 0; b < B; ++b) {
            ref_row(b * C + c, kk, flips.kernel, rk.data());
            for (int64_t s = 0; s < S; ++s) m = std::max(m, std::fabs(rk[size_t(s)]));
        }
        max_ref_c[size_t(c)] = m;
    });
    const double floor = 1e-3 * *std::max_element(max_ref_c.begin(), max_ref_c.end());
    const size_t dsize = size_t(dtype_size(res.out_dx_dtype));
    std::vector<DxErrors> errs(static_cast<size_t>(C));
    // Without kink flips (or with the same ones) both implementations share one reference.
    const bool same_ref = flips.kernel == flips.oracle;
    oracle::Float32Result sums;
    sums.dgamma.resize(size_t(C));
    sums.dbeta.resize(size_t(C));
    for_each_channel(C, [&](int64_t c) {
        thread_local std::vector<double> rk, ro;
        thread_local std::vector<float> yk;
        rk.resize(size_t(S));
        ro.resize(size_t(S));
        yk.resize(size_t(S));
        DxErrors& e = errs[size_t(c)];
        const oracle::ChannelSums cs = oracle::torch_float32_channel(pr, c, [&](int64_t r, const float* yo) {
            ref_row(r, kk, flips.kernel, rk.data());
            if (!same_ref) ref_row(r, ko, flips.oracle, ro.data());
            const double* rr = same_ref ? rk.data() : ro.data();
            num::load_elems(res.out_dx_bytes.data() + size_t(r * S) * dsize, res.out_dx_dtype, size_t(S), yk.data());
            for (int64_t s = 0; s < S; ++s) {
                const size_t j = size_t(s);
                e.k.add(yk[j], rk[j]);
                e.o.add(yo[j], rr[j]);
                const double ak_ = std::fabs(rk[j]), ao_ = std::fabs(rr[j]);
                if (ak_ >= floor && ak_ > 0) e.rel_k = std::max(e.rel_k, std::fabs(double(yk[j]) - rk[j]) / ak_);
                if (ao_ >= floor && ao_ > 0) e.rel_o = std::max(e.rel_o, std::fabs(double(yo[j]) - rr[j]) / ao_);
                const double d = double(yk[j]) - double(yo[j]);
                e.se_ko += d * d;
                e.sq_o += double(yo[j]) * double(yo[j]);
            }
        }, nullptr);
        sums.dgamma[size_t(c)] = cs.dgamma;
        sums.dbeta[size_t(c)] = cs.dbeta;
    });
    DxErrors all;
    for (const DxErrors& e : errs) all.merge(e);
    const ErrorAccumulator &ak = all.k, &ao = all.o;
    const double rel_k = all.rel_k, rel_o = all.rel_o, se_ko = all.se_ko, sq_o = all.sq_o;
    // Tolerance: the bf16 (or configured) intermediates direct_x and var_x, and the cast to dx's
    // dtype: each element carries at most about 2*u_c + u_o of max|dx| (u = unit roundoff), plus
    // the scale/bias operand path's u_op on direct_x and var_x; the L2 bound takes twice the sum.
    const Roundoffs u = roundoffs(p, opts);
    const double k = opts.tolerance_scale;
    OutputCheck& o = res.dx;
    o.name = "dx";
    o.kernel = ak.metrics(rel_k);
    o.oracle = ao.metrics(rel_o);
    o.kernel_vs_oracle_rel_l2 = sq_o > 0 ? std::sqrt(se_ko / sq_o) : std::sqrt(se_ko);
    o.tol_rel_l2 = k * (2.0 * (u.uc + u.uo) + 4 * u.u_op + 8 * u.u32);
    o.tol_max_abs = k * (4.0 * (u.uc + u.uo) + 8 * u.u_op + 8 * u.u32) * ak.max_ref;
    o.tolerance_basis = std::string("intermediates ") + dtype_name(p.compute_dtype) + ", dx " + dtype_name(p.dtype) +
                        ", scale/bias operand " + std::to_string(opts.scale_bias_operand_bits) + " bits";
    auto ratio = [&](const ErrorMetrics& m) {
        return std::max(m.rel_l2_err / o.tol_rel_l2, o.tol_max_abs > 0 ? m.max_abs_err / o.tol_max_abs : 0.0);
    };
    o.kernel_err_over_tol = ratio(o.kernel);
    o.oracle_err_over_tol = ratio(o.oracle);
    return sums;
}

// One per-channel output against its reference, each channel held to its own tolerance.
void check_column(OutputCheck& o, const char* name, const std::vector<float>& yk, const std::vector<float>& yo,
                  const std::vector<double>& rk, const std::vector<double>& ro, const std::vector<double>& tol) {
    o.name = name;
    o.kernel = num::error_metrics(yk, rk);
    o.oracle = num::error_metrics(yo, ro);
    o.kernel_vs_oracle_rel_l2 = num::rel_l2(yk, yo);
    o.tolerance_basis = "fp32 accumulation of N terms per channel";
    double num = 0, den = 0;
    for (size_t c = 0; c < tol.size(); ++c) {
        o.tol_max_abs = std::max(o.tol_max_abs, tol[c]);
        o.kernel_err_over_tol = std::max(o.kernel_err_over_tol, std::fabs(yk[c] - rk[c]) / tol[c]);
        o.oracle_err_over_tol = std::max(o.oracle_err_over_tol, std::fabs(yo[c] - ro[c]) / tol[c]);
        num += tol[c] * tol[c];
        den += rk[c] * rk[c];
    }
    o.tol_rel_l2 = den > 0 ? std::sqrt(num / den) : 0;
    if (std::isnan(o.kernel_err_over_tol) || std::isnan(o.kernel.max_abs_err)) o.kernel_err_over_tol = INFINITY;
}

// dgamma/dbeta: fp32 sums of N terms accumulated sequentially (reduce registers, tensor_reduce):
// |err| <~ 8 u32 sqrt(N) max(||t||_2, |sum t|) per channel, plus for dgamma the cancellation of
// sum(dy'x) against mean*dbeta, times rstd.
void check_dgamma_dbeta(const Params& p, const BnInputs& in, const ValidateOptions& opts, const oracle::Problem& pr,
                        const oracle::Reference64& ref, const oracle::Coefficients& kk, const oracle::Coefficients& ko,
                        const oracle::Float32Result& orc, ValidateResult& res) {
    const int64_t C = p.shape.C;
    const double u32 = num::unit_roundoff(24), k = opts.tolerance_scale, sqrtN = std::sqrt(double(pr.N()));
    std::vector<double> tol_b(static_cast<size_t>(C)), tol_g(static_cast<size_t>(C));
    for (int64_t c = 0; c < C; ++c) {
        const size_t ci = size_t(c);
        const double sdy = std::max(ref.dy_l2()[ci], std::fabs(kk.dbeta[ci]));
        const double sdyx = std::max(ref.dyx_l2()[ci], std::fabs(ref.dyx_sum()[ci]));
        tol_b[ci] = k * (8 * u32 * sqrtN * sdy + 4 * u32 * std::fabs(kk.dbeta[ci])) + 1e-30;
        tol_g[ci] = k * (8 * u32 * sqrtN * (sdyx + std::fabs(in.means[ci]) * sdy) * ref.rstd(c) +
                         8 * u32 * std::fabs(kk.dgamma[ci])) + 1e-30;
    }
    check_column(res.dbeta, "dbeta", res.out_dbeta, orc.dbeta, kk.dbeta, ko.dbeta, tol_b);
    check_column(res.dgamma, "dgamma", res.out_dgamma, orc.dgamma, kk.dgamma, ko.dgamma, tol_g);
}

}  // namespace

uint64_t validate_bytes_needed(const Trace& trace, const Params& p, int partitions, uint64_t bpp) {
    const uint64_t n = uint64_t(p.shape.elements());
    const uint64_t inputs = input_bytes(p);  // dy and x_in in the run's dtype (+ mask), held throughout
    // While the trace runs: the device memory (the pages its instructions touch; the input
    // tensors are the inputs above, lent) and the mask probe's record.
    const uint64_t executing = inputs - 2 * n * uint64_t(dtype_size(p.dtype)) - (p.uses_mask() ? n : 0) +
                               num::DeviceMemory::bytes_needed(trace, partitions, bpp) + (p.fuse_relu ? n : 0);
    // Then: the kernel's dx bytes, the applied and the oracle's recomputed masks, and the oracle's
    // two per-channel [B, spatial] fp32 buffers (dx itself is streamed row by row, never held).
    // Each further thread of the per-channel checks holds its own oracle buffers: 8 B*spatial
    // bytes more (2 MiB at the seed shape), left out so the estimate is the same on any machine.
    const uint64_t checking = inputs + n * uint64_t(dtype_size(p.dtype)) + (p.fuse_relu ? n : 0) +
                              (p.recomputes_mask() ? n : 0) + uint64_t(p.shape.B * p.shape.spatial()) * 8;
    return std::max(executing, checking);
}

ValidateResult validate_batch_norm_bwd(const Trace& trace, const Params& p, const BnInputs& in,
                                       const ValidateOptions& opts, const num::Runner& run) {
    ValidateResult res;
    Laps lap{res, {}};
    std::vector<uint8_t> applied = run_emulated(trace, p, in, opts, run, res, lap);

    const oracle::Problem pr = oracle_problem(p, in);
    // The float32 oracle's own recomputed mask (its sums and dx are streamed in check_dx).
    oracle::Float32Result orc;
    if (p.recomputes_mask()) {
        orc.mask.resize(size_t(pr.size()));
        for_each_channel(pr.C, [&](int64_t c) { oracle::torch_float32_channel(pr, c, nullptr, orc.mask.data()); });
        lap("float32 oracle mask");
    }
    oracle::Reference64 ref(pr, for_each_channel);
    lap("float64 reference");

    KinkFlips flips;
    if (p.fuse_relu) {
        flips = check_mask(p, in, opts, ref, applied, orc.mask, res.mask);
        applied = {};
        lap("mask flips");
    }
    const oracle::Coefficients kk = ref.coefficients(flips.kernel), ko = ref.coefficients(flips.oracle);

    oracle::Float32Result sums = check_dx(p, opts, pr, ref, kk, ko, flips, res);
    orc.dgamma = std::move(sums.dgamma);
    orc.dbeta = std::move(sums.dbeta);
    lap("float32 oracle and dx metrics");

    check_dgamma_dbeta(p, in, opts, pr, ref, kk, ko, orc, res);
    for (OutputCheck* o : {&res.dx, &res.dgamma, &res.dbeta}) num::judge(*o);
    res.pass = res.hazards.empty() && res.mask.flips_outside_kink == 0;
    for (const OutputCheck* o : {&res.dx, &res.dgamma, &res.dbeta}) res.pass = res.pass && o->kernel_pass && o->oracle_pass;
    lap("dgamma/dbeta metrics");
    return res;
}

std::vector<float> ValidateResult::dx_values() const {
    std::vector<float> v(out_dx_bytes.size() / size_t(dtype_size(out_dx_dtype)));
    num::load_elems(out_dx_bytes.data(), out_dx_dtype, v.size(), v.data());
    return v;
}

std::vector<num::NpyFile> output_files(const Params& p, const ValidateResult& r) {
    const auto& s = p.shape;
    const std::vector<int64_t> full{s.B, s.C, s.D, s.H, s.W}, col{s.C, 1};
    return {
        {"dx.npy", [&r, full](std::ostream& o) { num::write_npy(o, full, r.dx_values().data()); }},
        {"dgamma.npy", [&r, col](std::ostream& o) { num::write_npy(o, col, r.out_dgamma.data()); }},
        {"dbeta.npy", [&r, col](std::ostream& o) { num::write_npy(o, col, r.out_dbeta.data()); }},
    };
}

}  // namespace bnsim::bn
