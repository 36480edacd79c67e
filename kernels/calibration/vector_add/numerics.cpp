#include "kernels/calibration/vector_add/numerics.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <sys/stat.h>

#include "configfile/config_node.h"
#include "kernels/kernel_entry.h"
#include "kernels/numerics_keys.h"
#include "numerics/bf16.h"
#include "numerics/device_memory.h"
#include "numerics/executor.h"
#include "numerics/hbm_io.h"
#include "numerics/npy.h"
#include "numerics/runners.h"

namespace bnsim::cal {
namespace {

void parse_section(ConfigNode* n, ConfigNode*, ConfigNode*, std::any& params) {
    VectorAddParams& p = std::any_cast<VectorAddParams&>(params);
    if (!n) return;
    p.seed = uint64_t(n->integer("seed", 0, int64_t(1) << 62, 1));
    p.a = parse_distribution(*n, "a", p.a);
    p.b = parse_distribution(*n, "b", p.b);
}

uint64_t bytes_needed(const std::any& params, const Trace& trace, const KernelTarget& t) {
    const auto& p = kernel_params<VectorAddParams>(params);
    // a, b as fp32 (held throughout), the device memory the trace declares, then c as fp32, the
    // float32 oracle and the float64 reference.
    return p.n * 4 * 2 + num::DeviceMemory::bytes_needed(trace, t.partitions, t.sbuf_usable_bytes) + p.n * (4 * 2 + 8);
}

struct Inputs {
    std::vector<float> a, b;
    std::string source;
};

std::vector<float> read_vector(const std::string& dir, const char* name, const VectorAddParams& p) {
    const std::string f = dir + "/" + name;
    struct stat st;
    if (lstat(f.c_str(), &st) != 0) throw num::NpyError(f + ": missing (the --inputs directory must hold it)");
    const int64_t cols = int64_t(p.n / p.partitions);
    // Shape and dtype are checked on the header, before the data is read.
    num::NpyArray a = num::read_npy(f, [&](const num::NpyHeader& h) {
        if (h.type != num::NpyType::f32)
            throw num::NpyError(f + ": dtype '" + num::npy_type_name(h.type) + "' where float32 is expected ('<f4')");
        if (h.shape != std::vector<int64_t>{int64_t(p.n)} && h.shape != std::vector<int64_t>{int64_t(p.partitions), cols})
            throw num::NpyError(f + ": shape " + num::shape_str(h.shape) + " where [" + std::to_string(p.n) + "] or [" +
                                std::to_string(p.partitions) + ", " + std::to_string(cols) + "] is expected");
    });
    for (size_t i = 0; i < a.f32.size(); ++i)
        if (!std::isfinite(a.f32[i]))
            throw num::NpyError(f + ": element " + std::to_string(i) + " is not finite; expected finite values");
    return std::move(a.f32);
}

std::vector<float> rounded(num::BigVector<float> v, DType dt) {
    num::round_to_dtype(v, dt);
    return std::vector<float>(v.begin(), v.end());
}

Inputs load_inputs(const ValidateRequest& req, const VectorAddParams& p) {
    Inputs in;
    try {
        if (req.inputs_dir.empty()) {
            num::BigVector<float> a(p.n), b(p.n);
            num::fill(a, p.a, p.seed, 1, DType::fp32);
            num::fill(b, p.b, p.seed, 2, DType::fp32);
            in.a = rounded(std::move(a), p.dtype);
            in.b = rounded(std::move(b), p.dtype);
            in.source = "generated (seed " + std::to_string(p.seed) + "): a " + describe(p.a) + ", b " + describe(p.b);
        } else {
            auto a = read_vector(req.inputs_dir, "a.npy", p), b = read_vector(req.inputs_dir, "b.npy", p);
            in.a = rounded(num::BigVector<float>(a.begin(), a.end()), p.dtype);
            in.b = rounded(num::BigVector<float>(b.begin(), b.end()), p.dtype);
            in.source = req.inputs_dir;
        }
        const std::vector<int64_t> view{int64_t(p.partitions), int64_t(p.n / p.partitions)};
        if (req.save_inputs) {
            const float *a = in.a.data(), *b = in.b.data();
            req.save_inputs({{"a.npy", [view, a](std::ostream& o) { num::write_npy(o, view, a); }},
                             {"b.npy", [view, b](std::ostream& o) { num::write_npy(o, view, b); }}});
        }
    } catch (const num::NpyError& e) {
        throw KernelError(e.what());
    }
    return in;
}

// The emulated kernel's c, with the execution's hazards.
std::vector<float> run_emulated(const ValidateRequest& req, const Inputs& in, num::ValidationResult& res) {
    const Trace& trace = *req.trace;
    num::DeviceMemory mem(trace, req.target.partitions, req.target.sbuf_usable_bytes);
    num::put_tensor(mem, trace, "a", in.a.data(), in.a.size());
    num::put_tensor(mem, trace, "b", in.b.data(), in.b.size());
    num::ExecutorOptions eo;
    eo.scale_bias_operand_bits = req.settings.scale_bias_operand_bits;
    num::FunctionalExecutor ex(mem, eo);
    num::HazardChecker hz(trace);
    num::ObserverFanout fan;
    fan.add(&hz);
    fan.add(&ex);
    req.run(trace, fan);
    res.hazards = hz.check();
    res.dependency_edges_checked = hz.edges_checked();
    res.instructions = ex.finished();
    return num::get_tensor(mem, trace, "c");
}

// The float32 oracle: the same sum, written directly in float32 and rounded to the dtype.
std::vector<float> oracle_float32(const VectorAddParams& p, const std::vector<float>& a, const std::vector<float>& b) {
    const uint64_t cols = p.n / p.partitions;
    std::vector<float> c(a.size());
    for (uint64_t r = 0; r < p.partitions; ++r)
        for (uint64_t j = 0; j < cols; ++j) {
            const uint64_t i = r * cols + j;
            const float bj = p.op == Opcode::TensorScalar ? b[r * cols + j / p.free * p.free] : b[i];
            c[i] = a[i] + bj;
            if (p.dtype == DType::bf16) c[i] = num::round_bf16(c[i]);
        }
    return c;
}

num::OutputCheck check_c(const VectorAddParams& p, const NumericsSettings& s, const std::vector<float>& kernel,
                         const std::vector<float>& oracle, const std::vector<double>& ref) {
    num::OutputCheck o;
    o.name = "c";
    o.kernel = num::error_metrics(kernel, ref);
    o.oracle = num::error_metrics(oracle, ref);
    o.kernel_vs_oracle_rel_l2 = num::rel_l2(kernel, oracle);
    // One fp32 add rounded once more to the output dtype: each element within (u_out + u32) of
    // itself, plus the scalar operand path's roundoff on b for tensor_scalar; twice that as margin.
    const double u32 = num::unit_roundoff(24), uo = p.dtype == DType::bf16 ? num::unit_roundoff(8) : u32;
    const double uop = p.op == Opcode::TensorScalar ? num::unit_roundoff(std::min(s.scale_bias_operand_bits, 24)) : 0.0;
    const double u = 2.0 * (uo + u32 + uop);
    o.tol_rel_l2 = s.tolerance_scale * u;
    o.tol_max_abs = s.tolerance_scale * u * o.kernel.max_abs_ref;
    o.tolerance_basis = std::string("one add rounded to ") + dtype_name(p.dtype) +
                        (uop > 0 ? ", scalar operand " + std::to_string(s.scale_bias_operand_bits) + " bits" : "");
    auto ratio = [&](const num::ErrorMetrics& m) {
        return std::max(m.rel_l2_err / o.tol_rel_l2, o.tol_max_abs > 0 ? m.max_abs_err / o.tol_max_abs : 0.0);
    };
    o.kernel_err_over_tol = ratio(o.kernel);
    o.oracle_err_over_tol = ratio(o.oracle);
    num::judge(o);
    return o;
}

void describe(const VectorAddParams& p, KernelValidation& v) {
    const uint64_t cols = p.n / p.partitions;
    v.header["shape"] = {{"n", p.n}, {"partitions", p.partitions}, {"free", p.free}};
    v.header["dtype"] = dtype_name(p.dtype);
    v.header["op"] = opcode_name(p.op);
    std::ostringstream t;
    t << " n=" << p.n << " as [" << p.partitions << ", " << cols << "] in tiles of " << p.free << ", "
      << dtype_name(p.dtype) << ", " << opcode_name(p.op);
    v.title = t.str();
}

KernelValidation run_validation(const ValidateRequest& req) {
    const VectorAddParams& p = kernel_params<VectorAddParams>(*req.params);
    const Inputs in = load_inputs(req, p);
    KernelValidation v;
    num::StepTimer lap(v.result);
    const std::vector<float> c = run_emulated(req, in, v.result);
    lap.lap("execute trace");
    const std::vector<double> ref = vector_add_reference(p, in.a, in.b);
    const std::vector<float> orc = oracle_float32(p, in.a, in.b);
    v.result.outputs = {check_c(p, req.settings, c, orc, ref)};
    v.result.pass = v.result.outputs_pass();
    lap.lap("compare");
    if (req.write_outputs) {
        const std::vector<int64_t> view{int64_t(p.partitions), int64_t(p.n / p.partitions)};
        req.write_outputs({{"c.npy", [&c, view](std::ostream& o) { num::write_npy(o, view, c.data()); }}});
    }
    v.inputs = in.source;
    describe(p, v);
    return v;
}

}  // namespace

std::vector<double> vector_add_reference(const VectorAddParams& p, const std::vector<float>& a,
                                         const std::vector<float>& b) {
    const uint64_t cols = p.n / p.partitions;
    std::vector<double> c(a.size());
    for (uint64_t r = 0; r < p.partitions; ++r)
        for (uint64_t tile = 0; tile < cols / p.free; ++tile)
            for (uint64_t j = 0; j < p.free; ++j) {
                const uint64_t i = r * cols + tile * p.free + j;
                const uint64_t bi = p.op == Opcode::TensorScalar ? r * cols + tile * p.free : i;
                c[i] = double(a[i]) + double(b[bi]);
            }
    return c;
}

const KernelNumerics& vector_add_numerics() {
    static const KernelNumerics n{parse_section, bytes_needed, run_validation, nullptr};  // no streaming
    return n;
}

}  // namespace bnsim::cal
