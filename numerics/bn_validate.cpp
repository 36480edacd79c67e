#include "numerics/bn_validate.h"

#include <chrono>
#include <cmath>
#include <algorithm>
#include <cstring>
#include <map>
#include <stdexcept>

#include "numerics/bf16.h"
#include "numerics/device_memory.h"
#include "numerics/executor.h"
#include "numerics/npy.h"
#include "numerics/oracle/oracle.h"
#include "numerics/runners.h"

namespace bnsim::num {
namespace {

using Clock = std::chrono::steady_clock;

// Watches the instructions that apply the ReLU mask and records, for every element, the mask
// value the kernel actually used, mapped back to [B, C, spatial] through the unit's dy load.
// Kernel-specific: it recognises batch_norm_bwd's instructions by their tags.
class MaskProbe : public ExecutionObserverIF {
public:
    MaskProbe(const Trace& t, FunctionalExecutor& ex, const bn::Params& p) : t_(t), ex_(ex), p_(p) {
        if (p.fuse_relu) mask_.assign(size_t(p.shape.elements()), 2);
    }
    void on_start(const Instruction& ins, double) override {
        if (!p_.fuse_relu) return;
        const std::string what = ins.tag.what ? ins.tag.what : "";
        if (ins.opcode == Opcode::DmaCopy && what == "load dy") {
            dy_src_[{ins.core, ins.tag.unit}] = ins.srcs.at(0).region;
            return;
        }
        const bool recomputed = ins.opcode == Opcode::ScalarTensorTensor && ins.alu[0] == AluOp::is_gt;
        const bool loaded = ins.opcode == Opcode::TensorTensor && what == "dy*mask";
        if (!recomputed && !loaded) return;
        auto it = dy_src_.find({ins.core, ins.tag.unit});
        if (it == dy_src_.end()) throw std::logic_error("mask probe: no dy load seen for unit " + std::to_string(ins.tag.unit));
        const Region& src = it->second;
        const Operand& m = recomputed ? ins.srcs.at(0) : ins.srcs.at(1);
        const std::vector<float> v = ex_.read(m);
        const float thr = recomputed ? ins.scalar[0].imm : 0.0f;
        const int64_t S = p_.shape.spatial();
        const int64_t s0 = int64_t(src.byte_lo / uint64_t(dtype_size(p_.dtype)));
        const uint32_t rows = m.region.rows();
        const size_t n = size_t(m.elems_per_row());
        for (uint32_t r = 0; r < rows; ++r) {
            const int64_t base = int64_t(src.row_lo + r) * S + s0;
            for (size_t j = 0; j < n; ++j) {
                const float x = v[size_t(r) * n + j];
                mask_[size_t(base) + j] = recomputed ? (x > thr) : (x != 0.0f);
            }
        }
    }
    void on_finish(const Instruction&, double) override {}
    std::vector<uint8_t> take_mask() { return std::move(mask_); }

private:
    const Trace& t_;
    FunctionalExecutor& ex_;
    const bn::Params& p_;
    std::map<std::pair<int, int>, Region> dy_src_;
    std::vector<uint8_t> mask_;  // 0/1, 2 = never applied
};

void put(DeviceMemory& mem, const Trace& t, const char* name, const float* data, size_t n) {
    const HbmTensor* h = t.find_tensor(name);
    if (!h) return;
    auto& bytes = mem.hbm(h->id);
    if (bytes.size() != n * size_t(dtype_size(h->dtype)))
        throw std::logic_error(std::string("numerics: input ") + name + " has " + std::to_string(n) +
                               " elements for a tensor of " + std::to_string(bytes.size()) + " bytes");
    store_elems(data, h->dtype, n, bytes.data());
}

std::vector<float> get(const DeviceMemory& mem, const Trace& t, const char* name) {
    const HbmTensor* h = t.find_tensor(name);
    if (!h) throw std::logic_error(std::string("numerics: the trace has no output tensor ") + name);
    const auto& bytes = mem.hbm(h->id);
    std::vector<float> out(bytes.size() / size_t(dtype_size(h->dtype)));
    load_elems(bytes.data(), h->dtype, out.size(), out.data());
    return out;
}

// Accumulates the error metrics of a stream of (value, reference) pairs.
struct Acc {
    double max_abs = 0, sq_err = 0, sq_ref = 0, max_ref = 0;
    void add(double y, double r) {
        const double e = std::fabs(y - r);
        if (!(e <= max_abs)) max_abs = e;  // NaN propagates
        sq_err += e * e;
        sq_ref += r * r;
        max_ref = std::max(max_ref, std::fabs(r));
    }
};

// Second pass for the relative metric, which needs max|ref| first.
template <typename F>
ErrorMetrics finish(const Acc& a, F&& rel_pass) {
    ErrorMetrics m;
    m.max_abs_err = a.max_abs;
    m.rel_l2_err = a.sq_ref > 0 ? std::sqrt(a.sq_err / a.sq_ref) : std::sqrt(a.sq_err);
    m.max_abs_ref = a.max_ref;
    m.max_rel_err = rel_pass(1e-3 * a.max_ref);
    return m;
}

ErrorMetrics column_metrics(const std::vector<float>& y, const std::vector<double>& ref) {
    Acc a;
    for (size_t c = 0; c < y.size(); ++c) a.add(y[c], ref[c]);
    return finish(a, [&](double floor) {
        double mr = 0;
        for (size_t c = 0; c < y.size(); ++c)
            if (std::fabs(ref[c]) >= floor && std::fabs(ref[c]) > 0)
                mr = std::max(mr, std::fabs(double(y[c]) - ref[c]) / std::fabs(ref[c]));
        return mr;
    });
}

double rel_l2(const std::vector<float>& a, const std::vector<float>& b) {
    double se = 0, sr = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        const double d = double(a[i]) - double(b[i]);
        se += d * d;
        sr += double(b[i]) * double(b[i]);
    }
    return sr > 0 ? std::sqrt(se / sr) : std::sqrt(se);
}

}  // namespace

uint64_t validate_bytes_needed(const Trace& trace, const bn::Params& p, int partitions, uint64_t bpp) {
    const uint64_t n = uint64_t(p.shape.elements());
    const uint64_t inputs = input_bytes(p);  // fp32 dy and x_in (+ mask), held throughout
    // While the trace runs: the device memory (HBM tensors as the trace declares them, SBUF
    // images) and the mask probe's record.
    const uint64_t executing = inputs + DeviceMemory::bytes_needed(trace, partitions, bpp) + (p.fuse_relu ? n : 0);
    // Then: the kernel's dx bytes, the applied and the oracle's recomputed masks, and the oracle's
    // two per-channel [B, spatial] fp32 buffers (dx itself is streamed row by row, never held).
    const uint64_t checking = inputs + n * uint64_t(dtype_size(p.dtype)) + (p.fuse_relu ? n : 0) +
                              (p.recomputes_mask() ? n : 0) + uint64_t(p.shape.B * p.shape.spatial()) * 8;
    return std::max(executing, checking);
}

ValidateResult validate_batch_norm_bwd(const Trace& trace, const bn::Params& p, const BnInputs& in,
                                       const ValidateOptions& opts, const Runner& run) {
    ValidateResult res;
    auto t0 = Clock::now();
    auto lap = [&](const char* what) {
        const auto t1 = Clock::now();
        res.phase_seconds.emplace_back(what, std::chrono::duration<double>(t1 - t0).count());
        t0 = t1;
    };
    const size_t n = size_t(p.shape.elements());
    const int64_t C = p.shape.C;

    // ---- the emulated kernel ----------------------------------------------------------------
    std::vector<uint8_t> eff;  // the mask the kernel applied (fuse_relu)
    {
        DeviceMemory mem(trace, opts.partitions, opts.sbuf_bytes_per_partition);
        lap("allocate device memory");
        put(mem, trace, "dy", in.dy.data(), n);
        put(mem, trace, "x_in", in.x_in.data(), n);
        put(mem, trace, "means", in.means.data(), size_t(C));
        put(mem, trace, "variances", in.variances.data(), size_t(C));
        put(mem, trace, "gamma", in.gamma.data(), size_t(C));
        put(mem, trace, "beta", in.beta.data(), size_t(C));
        if (const HbmTensor* m = trace.find_tensor("relu_mask")) {
            if (in.relu_mask.size() != n) throw std::logic_error("numerics: the run needs a relu_mask input");
            std::memcpy(mem.hbm(m->id).data(), in.relu_mask.data(), n);
        }
        lap("load inputs");
        ExecutorOptions eo;
        eo.scale_bias_operand_bits = opts.scale_bias_operand_bits;
        FunctionalExecutor ex(mem, eo);
        HazardChecker hz(trace);
        MaskProbe probe(trace, ex, p);
        ObserverFanout fan;
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
        res.out_dgamma = get(mem, trace, "dgamma");
        res.out_dbeta = get(mem, trace, "dbeta");
        eff = probe.take_mask();
        lap("check hazards");
    }

    // ---- oracle and reference ---------------------------------------------------------------
    oracle::Problem pr;
    pr.B = p.shape.B;
    pr.C = C;
    pr.S = p.shape.spatial();
    pr.dy = in.dy.data();
    pr.x = in.x_in.data();
    pr.means = in.means.data();
    pr.variances = in.variances.data();
    pr.gamma = in.gamma.data();
    pr.beta = in.beta.data();
    pr.fuse_relu = p.fuse_relu;
    pr.mask = p.uses_mask() ? in.relu_mask.data() : nullptr;
    pr.eps = p.eps;
    // The float32 oracle's sums and mask (dx is streamed into the metrics below).
    oracle::Float32Result orc;
    if (p.recomputes_mask()) {
        orc = oracle::torch_float32(pr, [](int64_t, const float*) {});
        lap("float32 oracle mask");
    }
    oracle::Reference64 ref(pr);
    lap("float64 reference");

    // ---- the ReLU mask ----------------------------------------------------------------------
    std::vector<int64_t> kflips_ok, oflips_ok;  // flips at the kink: judged by their own subgradient
    // A recomputed mask may legitimately flip where the forward output is within what the
    // scale/bias operand path resolves: each of x*scale and bias carries up to 2^-bits of itself
    // (twice that as margin), and never less than the configured relu_kink.
    const double u_op = unit_roundoff(std::min(opts.scale_bias_operand_bits, 24));
    auto kink_band = [&](int64_t i) {
        const int64_t c = ref.chan(i);
        const double a = double(in.gamma[size_t(c)]) * ref.rstd(c);
        const double b = double(in.beta[size_t(c)]) - double(in.means[size_t(c)]) * a;
        return std::max(opts.relu_kink, 2.0 * u_op * (std::fabs(double(in.x_in[size_t(i)]) * a) + std::fabs(b)));
    };
    if (p.fuse_relu) {
        MaskCheck& mc = res.mask;
        mc.mode = p.mask_supplied ? "supplied" : "recomputed";
        for (size_t i = 0; i < n; ++i) {
            if (eff[i] == 2) continue;
            ++mc.captured;
            const bool rm = ref.mask(int64_t(i));
            if (bool(eff[i]) != rm) {
                ++mc.flips;
                const double f = std::fabs(ref.forward(int64_t(i)));
                mc.max_abs_forward_flipped = std::max(mc.max_abs_forward_flipped, f);
                if (!p.mask_supplied && f <= kink_band(int64_t(i))) kflips_ok.push_back(int64_t(i));
                else ++mc.flips_outside_kink;
            }
            if (!orc.mask.empty() && bool(orc.mask[i]) != rm) {
                ++mc.oracle_flips;
                const double f = std::fabs(ref.forward(int64_t(i)));
                mc.oracle_max_abs_forward_flipped = std::max(mc.oracle_max_abs_forward_flipped, f);
                if (f <= std::max(opts.relu_kink, 4 * unit_roundoff(24) * (std::fabs(double(in.x_in[i])) + 1.0) *
                                                      ref.rstd(ref.chan(int64_t(i))) * std::fabs(double(in.gamma[size_t(ref.chan(int64_t(i)))]))))
                    oflips_ok.push_back(int64_t(i));
            }
        }
        if (mc.captured != int64_t(n))
            throw std::logic_error("numerics: the mask probe saw " + std::to_string(mc.captured) + " of " +
                                   std::to_string(n) + " mask elements");
        eff = {};
        lap("mask flips");
    }
    const oracle::Coefficients kk = ref.coefficients(kflips_ok), ko = ref.coefficients(oflips_ok);

    // ---- tolerances from the dtypes ---------------------------------------------------------
    // dx: the bf16 (or configured) intermediates direct_x and var_x, and the cast to dx's dtype:
    // each element carries at most about 2*u_c + u_o of max|dx| (u = unit roundoff), plus the
    // scale/bias operand path's u_op on direct_x and var_x; the L2 bound takes twice the sum.
    // dgamma/dbeta: fp32 sums of N terms accumulated sequentially (reduce registers, tensor_reduce): |err| <~ 8 u32 sqrt(N) max(||t||_2, |sum t|) per channel,
    // plus for dgamma the cancellation of sum(dy'x) against mean*dbeta, times rstd.
    const double u32 = unit_roundoff(24);
    const double uc = p.compute_dtype == DType::bf16 ? unit_roundoff(8) : u32;
    const double uo = p.dtype == DType::bf16 ? unit_roundoff(8) : u32;
    const double k = opts.tolerance_scale;
    const double sqrtN = std::sqrt(double(pr.N()));

    // ---- dx ----------------------------------------------------------------------------------
    // The reference for each implementation differs only at its own kink flips. A first pass
    // finds max|ref| (the floor of the relative metric); the second streams the oracle's rows.
    {
        const int64_t rows = p.shape.B * C, S = pr.S;
        std::vector<double> rk(static_cast<size_t>(S)), ro(static_cast<size_t>(S));
        std::vector<float> yk(static_cast<size_t>(S));
        double max_ref = 0;
        {
            size_t cur = 0;
            for (int64_t r = 0; r < rows; ++r) {
                ref.dx_row(r, kk, kflips_ok, cur, rk.data());
                for (int64_t s = 0; s < S; ++s) max_ref = std::max(max_ref, std::fabs(rk[size_t(s)]));
            }
        }
        const double floor = 1e-3 * max_ref;
        Acc ak, ao;
        double rel_k = 0, rel_o = 0, se_ko = 0, sq_o = 0;
        // Rows arrive channel-major, so each implementation's flip list is walked by binary search.
        auto ref_row = [&](int64_t r, const oracle::Coefficients& cf, const std::vector<int64_t>& fl, double* out) {
            size_t cur = size_t(std::lower_bound(fl.begin(), fl.end(), r * S) - fl.begin());
            ref.dx_row(r, cf, fl, cur, out);
        };
        oracle::Float32Result sums = oracle::torch_float32(pr, [&](int64_t r, const float* yo) {
            ref_row(r, kk, kflips_ok, rk.data());
            ref_row(r, ko, oflips_ok, ro.data());
            load_elems(res.out_dx_bytes.data() + size_t(r * S) * size_t(dtype_size(res.out_dx_dtype)), res.out_dx_dtype,
                       size_t(S), yk.data());
            for (int64_t s = 0; s < S; ++s) {
                const size_t j = size_t(s);
                ak.add(yk[j], rk[j]);
                ao.add(yo[j], ro[j]);
                const double ak_ = std::fabs(rk[j]), ao_ = std::fabs(ro[j]);
                if (ak_ >= floor && ak_ > 0) rel_k = std::max(rel_k, std::fabs(double(yk[j]) - rk[j]) / ak_);
                if (ao_ >= floor && ao_ > 0) rel_o = std::max(rel_o, std::fabs(double(yo[j]) - ro[j]) / ao_);
                const double d = double(yk[j]) - double(yo[j]);
                se_ko += d * d;
                sq_o += double(yo[j]) * double(yo[j]);
            }
        });
        orc.dgamma = std::move(sums.dgamma);
        orc.dbeta = std::move(sums.dbeta);
        lap("float32 oracle and dx metrics");
        OutputCheck& o = res.dx;
        o.name = "dx";
        o.kernel = finish(ak, [&](double) { return rel_k; });
        o.oracle = finish(ao, [&](double) { return rel_o; });
        o.kernel_vs_oracle_rel_l2 = sq_o > 0 ? std::sqrt(se_ko / sq_o) : std::sqrt(se_ko);
        o.tol_rel_l2 = k * (2.0 * (uc + uo) + 4 * u_op + 8 * u32);
        o.tol_max_abs = k * (4.0 * (uc + uo) + 8 * u_op + 8 * u32) * ak.max_ref;
        o.tolerance_basis = std::string("intermediates ") + dtype_name(p.compute_dtype) + ", dx " + dtype_name(p.dtype) +
                            ", scale/bias operand " + std::to_string(opts.scale_bias_operand_bits) + " bits";
        auto ratio = [&](const ErrorMetrics& m) {
            return std::max(m.rel_l2_err / o.tol_rel_l2, o.tol_max_abs > 0 ? m.max_abs_err / o.tol_max_abs : 0.0);
        };
        o.kernel_err_over_tol = ratio(o.kernel);
        o.oracle_err_over_tol = ratio(o.oracle);
    }

    // ---- dgamma, dbeta ----------------------------------------------------------------------
    {
        std::vector<double> tol_b(static_cast<size_t>(C)), tol_g(static_cast<size_t>(C));
        for (int64_t c = 0; c < C; ++c) {
            const size_t ci = size_t(c);
            const double sdy = std::max(ref.dy_l2()[ci], std::fabs(kk.dbeta[ci]));
            const double sdyx = std::max(ref.dyx_l2()[ci], std::fabs(ref.dyx_sum()[ci]));
            tol_b[ci] = k * (8 * u32 * sqrtN * sdy + 4 * u32 * std::fabs(kk.dbeta[ci])) + 1e-30;
            tol_g[ci] = k * (8 * u32 * sqrtN * (sdyx + std::fabs(in.means[ci]) * sdy) * ref.rstd(c) +
                             8 * u32 * std::fabs(kk.dgamma[ci])) + 1e-30;
        }
        auto fill = [&](OutputCheck& o, const char* name, const std::vector<float>& yk, const std::vector<float>& yo,
                        const std::vector<double>& rk, const std::vector<double>& ro, const std::vector<double>& tol) {
            o.name = name;
            o.kernel = column_metrics(yk, rk);
            o.oracle = column_metrics(yo, ro);
            o.kernel_vs_oracle_rel_l2 = rel_l2(yk, yo);
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
        };
        fill(res.dbeta, "dbeta", res.out_dbeta, orc.dbeta, kk.dbeta, ko.dbeta, tol_b);
        fill(res.dgamma, "dgamma", res.out_dgamma, orc.dgamma, kk.dgamma, ko.dgamma, tol_g);
    }
    for (OutputCheck* o : {&res.dx, &res.dgamma, &res.dbeta}) {
        if (std::isnan(o->kernel.max_abs_err)) o->kernel_err_over_tol = INFINITY;
        o->kernel_pass = o->kernel_err_over_tol <= 1.0;
        o->oracle_pass = o->oracle_err_over_tol <= 1.0;
    }
    res.pass = res.hazards.empty() && res.mask.flips_outside_kink == 0;
    for (const OutputCheck* o : {&res.dx, &res.dgamma, &res.dbeta}) res.pass = res.pass && o->kernel_pass && o->oracle_pass;
    lap("dgamma/dbeta metrics");
    return res;
}

std::vector<float> ValidateResult::dx_values() const {
    std::vector<float> v(out_dx_bytes.size() / size_t(dtype_size(out_dx_dtype)));
    load_elems(out_dx_bytes.data(), out_dx_dtype, v.size(), v.data());
    return v;
}

std::vector<NpyFile> output_files(const bn::Params& p, const ValidateResult& r) {
    const auto& s = p.shape;
    const std::vector<int64_t> full{s.B, s.C, s.D, s.H, s.W}, col{s.C, 1};
    return {
        {"dx.npy", [&r, full](std::ostream& o) { write_npy(o, full, r.dx_values().data()); }},
        {"dgamma.npy", [&r, col](std::ostream& o) { write_npy(o, col, r.out_dgamma.data()); }},
        {"dbeta.npy", [&r, col](std::ostream& o) { write_npy(o, col, r.out_dbeta.data()); }},
    };
}

}  // namespace bnsim::num
