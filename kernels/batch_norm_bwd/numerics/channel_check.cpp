#include "kernels/batch_norm_bwd/numerics/channel_check.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "kernels/batch_norm_bwd/numerics/oracle.h"
#include "numerics/bf16.h"
#include "numerics/device_memory.h"

namespace bnsim::bn {
namespace {

using num::ErrorAccumulator;
using num::ErrorMetrics;
using num::OutputCheck;

// Channel c as a problem of its own: C = 1, rows b = 0..B-1.
oracle::Problem channel_problem(const Params& p, const BnInputs& in, int64_t c, const ChannelData& d) {
    const bool bf16 = p.dtype == DType::bf16;
    oracle::Problem pr;
    pr.B = p.shape.B;
    pr.C = 1;
    pr.S = p.shape.spatial();
    pr.dy = oracle::Values(d.dy, bf16, pr.S, d.stride);
    pr.x = oracle::Values(d.x, bf16, pr.S, d.stride);
    pr.means = in.means.data() + c;
    pr.variances = in.variances.data() + c;
    pr.gamma = in.gamma.data() + c;
    pr.beta = in.beta.data() + c;
    pr.fuse_relu = p.fuse_relu;
    pr.mask = p.uses_mask() ? d.mask : nullptr;
    pr.eps = p.eps;
    return pr;
}

// Elements whose mask flipped at the ReLU kink: judged by their own subgradient in the reference.
struct KinkFlips {
    std::vector<int64_t> kernel, oracle;
};

// Compares the mask the kernel applied (and the float32 oracle's) with the reference's.
KinkFlips check_mask(const Params& p, const ValidateOptions& opts, const oracle::Problem& pr,
                     const oracle::Reference64& ref, const uint8_t* applied, const std::vector<uint8_t>& oracle_mask,
                     MaskCheck& mc) {
    KinkFlips ok;
    const int64_t n = pr.size();
    // A recomputed mask may legitimately flip where the forward output is within what the
    // scale/bias operand path resolves: each of x*scale and bias carries up to 2^-bits of itself
    // (twice that as margin), and never less than the configured relu_kink.
    const double u_op = num::unit_roundoff(std::min(opts.scale_bias_operand_bits, 24));
    const double a = double(pr.gamma[0]) * ref.rstd(0);
    const double b = double(pr.beta[0]) - double(pr.means[0]) * a;
    auto kink_band = [&](int64_t i) {
        return std::max(opts.relu_kink, 2.0 * u_op * (std::fabs(double(pr.x[i]) * a) + std::fabs(b)));
    };
    auto oracle_band = [&](int64_t i) {
        return std::max(opts.relu_kink, 4 * num::unit_roundoff(24) * (std::fabs(double(pr.x[i])) + 1.0) *
                                            ref.rstd(0) * std::fabs(double(pr.gamma[0])));
    };
    for (int64_t i = 0; i < n; ++i) {
        if (applied[i] == 2) continue;
        ++mc.captured;
        const bool rm = ref.mask(i);
        if (bool(applied[i]) != rm) {
            ++mc.flips;
            const double f = std::fabs(ref.forward(i));
            mc.max_abs_forward_flipped = std::max(mc.max_abs_forward_flipped, f);
            if (!p.mask_supplied && f <= kink_band(i)) ok.kernel.push_back(i);
            else ++mc.flips_outside_kink;
        }
        if (!oracle_mask.empty() && bool(oracle_mask[size_t(i)]) != rm) {
            ++mc.oracle_flips;
            const double f = std::fabs(ref.forward(i));
            mc.oracle_max_abs_forward_flipped = std::max(mc.oracle_max_abs_forward_flipped, f);
            if (f <= oracle_band(i)) ok.oracle.push_back(i);
        }
    }
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

// dx of the kernel and of the float32 oracle against the reference. The reference for each
// implementation differs only at its own kink flips. The oracle's rows stream in; the relative
// errors are kept until the floor (1e-3 of the largest |ref| of any channel) is known, those
// below 1e-3 of the first row's largest |ref| (under any floor) dropped at once. Returns the
// oracle's sums.
oracle::ChannelSums check_dx(const Params& p, const oracle::Problem& pr, const oracle::Reference64& ref,
                             const oracle::Coefficients& kk, const oracle::Coefficients& ko, const KinkFlips& flips,
                             const uint8_t* dx, int64_t dx_stride, ChannelResult& r) {
    const int64_t S = pr.S;
    const DType dx_dtype = p.dtype;
    auto ref_row = [&](int64_t row, const oracle::Coefficients& cf, const std::vector<int64_t>& fl, double* out) {
        size_t cur = size_t(std::lower_bound(fl.begin(), fl.end(), row * S) - fl.begin());
        ref.dx_row(row, cf, fl, cur, out);
    };
    thread_local std::vector<double> rk, ro;
    thread_local std::vector<float> yk;
    rk.resize(size_t(S));
    ro.resize(size_t(S));
    yk.resize(size_t(S));
    const size_t dsize = size_t(dtype_size(dx_dtype));
    // Without kink flips (or with the same ones) both implementations share one reference.
    const bool same_ref = flips.kernel == flips.oracle;
    bool first = true;
    const oracle::ChannelSums sums = oracle::torch_float32_channel(pr, 0, [&](int64_t row, const float* yo) {
        ref_row(row, kk, flips.kernel, rk.data());
        if (!same_ref) ref_row(row, ko, flips.oracle, ro.data());
        const double* rr = same_ref ? rk.data() : ro.data();
        if (first) {
            double m = 0;
            for (int64_t s = 0; s < S; ++s) m = std::max(m, std::fabs(rk[size_t(s)]));
            r.rel_k = num::DeferredMaxRel(1e-3 * m);
            r.rel_o = num::DeferredMaxRel(1e-3 * m);
            first = false;
        }
        num::load_elems(dx + size_t(row * (dx_stride ? dx_stride : S)) * dsize, dx_dtype, size_t(S), yk.data());
        num::compare_row_pair(yk.data(), yo, rk.data(), rr, size_t(S), r.dx_k, r.dx_o, r.rel_k, r.rel_o, r.se_ko,
                              r.sq_o);
    }, nullptr);
    r.max_ref = r.dx_k.max_ref;  // max |reference dx| over the channel
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

// dx: all channels' errors, the relative ones above 1e-3 of the largest |ref| of any channel.
// Tolerance: the bf16 (or configured) intermediates direct_x and var_x, and the cast to dx's
// dtype: each element carries at most about 2*u_c + u_o of max|dx| (u = unit roundoff), plus the
// scale/bias operand path's u_op on direct_x and var_x; the L2 bound takes twice the sum.
void combine_dx(const Params& p, const ValidateOptions& opts, const std::vector<ChannelResult>& ch,
                ValidateResult& res) {
    ErrorAccumulator ak, ao;
    double se_ko = 0, sq_o = 0, max_ref = 0, term = 0;
    for (const ChannelResult& r : ch) {
        ak.merge(r.dx_k);
        ao.merge(r.dx_o);
        se_ko += r.se_ko;
        sq_o += r.sq_o;
        max_ref = std::max(max_ref, r.max_ref);
        term = std::max(term, r.term_scale);
    }
    const double floor = 1e-3 * max_ref;
    double rel_k = 0, rel_o = 0;
    for (const ChannelResult& r : ch) {
        rel_k = std::max(rel_k, r.rel_k.max_above(floor));
        rel_o = std::max(rel_o, r.rel_o.max_above(floor));
    }
    const Roundoffs u = roundoffs(p, opts);
    const double k = opts.tolerance_scale;
    OutputCheck& o = res.dx;
    o.name = "dx";
    o.kernel = ak.metrics(rel_k);
    o.oracle = ao.metrics(rel_o);
    o.kernel_vs_oracle_rel_l2 = sq_o > 0 ? std::sqrt(se_ko / sq_o) : std::sqrt(se_ko);
    o.tol_rel_l2 = k * (2.0 * (u.uc + u.uo) + 4 * u.u_op + 8 * u.u32);
    // The rounding error of dx is relative to the terms it cancels (dy, its mean, xhat times
    // mean(dy xhat)), which the result can be far smaller than: with one element per channel
    // (a shape of all ones) dx is exactly 0 while its terms are |gamma| rstd |dy|.
    o.tol_max_abs = k * (4.0 * (u.uc + u.uo) + 8 * u.u_op + 8 * u.u32) * std::max(ak.max_ref, term);
    // A reference that vanishes next to those terms leaves relative L2 nothing to be relative
    // to: it is then judged by the absolute bound alone.
    const bool ref_vanishes = ak.max_ref <= 1e-3 * term;
    o.tolerance_basis = std::string("intermediates ") + dtype_name(p.compute_dtype) + ", dx " + dtype_name(p.dtype) +
                        ", scale/bias operand " + std::to_string(opts.scale_bias_operand_bits) + " bits";
    auto ratio = [&](const ErrorMetrics& m) {
        const double abs_ratio = o.tol_max_abs > 0 ? m.max_abs_err / o.tol_max_abs : 0.0;
        return ref_vanishes ? abs_ratio : std::max(m.rel_l2_err / o.tol_rel_l2, abs_ratio);
    };
    o.kernel_err_over_tol = ratio(o.kernel);
    o.oracle_err_over_tol = ratio(o.oracle);
}

// dgamma/dbeta: fp32 sums of N terms accumulated sequentially (reduce registers, tensor_reduce):
// |err| <~ 8 u32 sqrt(N) max(||t||_2, |sum t|) per channel, plus for dgamma the cancellation of
// sum(dy'x) against mean*dbeta, times rstd.
void combine_dgamma_dbeta(const Params& p, const ValidateOptions& opts, const BnInputs& in,
                          const std::vector<ChannelResult>& ch, ValidateResult& res) {
    const size_t C = ch.size();
    const double u32 = num::unit_roundoff(24), k = opts.tolerance_scale;
    const double sqrtN = std::sqrt(double(p.shape.B * p.shape.spatial()));
    std::vector<double> tol_b(C), tol_g(C), kb(C), kg(C), ob(C), og(C);
    std::vector<float> orc_b(C), orc_g(C);
    for (size_t c = 0; c < C; ++c) {
        const ChannelResult& r = ch[c];
        kb[c] = r.ref_dbeta_k;
        kg[c] = r.ref_dgamma_k;
        ob[c] = r.ref_dbeta_o;
        og[c] = r.ref_dgamma_o;
        orc_b[c] = r.oracle_dbeta;
        orc_g[c] = r.oracle_dgamma;
        const double sdy = std::max(r.dy_l2, std::fabs(kb[c]));
        const double sdyx = std::max(r.dyx_l2, std::fabs(r.dyx_sum));
        tol_b[c] = k * (8 * u32 * sqrtN * sdy + 4 * u32 * std::fabs(kb[c])) + 1e-30;
        tol_g[c] = k * (8 * u32 * sqrtN * (sdyx + std::fabs(in.means[c]) * sdy) * r.rstd + 8 * u32 * std::fabs(kg[c])) +
                   1e-30;
    }
    check_column(res.dbeta, "dbeta", res.out_dbeta, orc_b, kb, ob, tol_b);
    check_column(res.dgamma, "dgamma", res.out_dgamma, orc_g, kg, og, tol_g);
}

}  // namespace

ChannelResult check_channel(const Params& p, const ValidateOptions& opts, const BnInputs& in, int64_t c,
                            const ChannelData& d) {
    ChannelResult r;
    const oracle::Problem pr = channel_problem(p, in, c, d);
    // The float32 oracle's own recomputed mask (its sums and dx come in check_dx).
    thread_local std::vector<uint8_t> oracle_mask;
    oracle_mask.clear();
    if (p.recomputes_mask()) {
        oracle_mask.resize(size_t(pr.size()));
        oracle::torch_float32_channel(pr, 0, nullptr, oracle_mask.data());
    }
    const oracle::Reference64 ref(pr);
    KinkFlips flips;
    if (p.fuse_relu) flips = check_mask(p, opts, pr, ref, d.applied, oracle_mask, r.mask);
    const oracle::Coefficients kk = ref.coefficients(flips.kernel), ko = ref.coefficients(flips.oracle);
    const oracle::ChannelSums sums = check_dx(p, pr, ref, kk, ko, flips, d.dx, d.stride, r);
    r.rstd = ref.rstd(0);
    r.dy_l2 = ref.dy_l2()[0];
    r.term_scale = std::fabs(double(pr.gamma[0])) * r.rstd * r.dy_l2 / std::sqrt(double(std::max<int64_t>(1, pr.size())));
    r.dyx_l2 = ref.dyx_l2()[0];
    r.dyx_sum = ref.dyx_sum()[0];
    r.ref_dbeta_k = kk.dbeta[0];
    r.ref_dgamma_k = kk.dgamma[0];
    r.ref_dbeta_o = ko.dbeta[0];
    r.ref_dgamma_o = ko.dgamma[0];
    r.oracle_dbeta = sums.dbeta;
    r.oracle_dgamma = sums.dgamma;
    return r;
}

void combine_channels(const Params& p, const ValidateOptions& opts, const BnInputs& in,
                      const std::vector<ChannelResult>& channels, ValidateResult& res) {
    MaskCheck& mc = res.mask;
    if (p.fuse_relu) {
        mc.mode = p.mask_supplied ? "supplied" : "recomputed";
        for (const ChannelResult& r : channels) {
            const MaskCheck& m = r.mask;
            mc.captured += m.captured;
            mc.flips += m.flips;
            mc.flips_outside_kink += m.flips_outside_kink;
            mc.oracle_flips += m.oracle_flips;
            mc.max_abs_forward_flipped = std::max(mc.max_abs_forward_flipped, m.max_abs_forward_flipped);
            mc.oracle_max_abs_forward_flipped = std::max(mc.oracle_max_abs_forward_flipped, m.oracle_max_abs_forward_flipped);
        }
        if (mc.captured != p.shape.elements())
            throw std::logic_error("numerics: the mask probe saw " + std::to_string(mc.captured) + " of " +
                                   std::to_string(p.shape.elements()) + " mask elements");
    }
    combine_dx(p, opts, channels, res);
    combine_dgamma_dbeta(p, opts, in, channels, res);
}

uint64_t channel_check_bytes(const Params& p, bool in_place) {
    const uint64_t N = uint64_t(p.shape.B * p.shape.spatial());
    const uint64_t ds = uint64_t(dtype_size(p.dtype));
    // Copies of dy, x and dx unless read in place, of the supplied and applied masks, the
    // oracle's recomputed mask, and the oracle's two [B, spatial] fp32 buffers.
    return (in_place ? 0 : N * 3 * ds) + (p.uses_mask() ? N : 0) + (p.fuse_relu ? N : 0) +
           (p.recomputes_mask() ? N : 0) + N * 8;
}

}  // namespace bnsim::bn
