// batch_norm_bwd's keys of the `numerics:` section (all optional):
//
//   numerics:
//     seed: 1
//     x_in: {distribution: normal, mean: 0.0, spread: 1.0}   # normal: spread = std deviation
//     dy:   {distribution: normal, mean: 0.0, spread: 1.0}   # uniform: mean +- spread
//     gamma: {min: 0.5, max: 1.5}                            # uniform per channel
//     beta:  {min: -0.5, max: 0.5}
//     precision:                        # what-ifs; defaults are the kernel's choices
//       dyx_product: float32            # dtype of the dy'*x_in product tile (bfloat16 | float32)
//       intermediates: bfloat16         # direct_x, var_x, loaded mask, rebuilt post_bn
//     tolerances: {relu_kink: 1.0e-5}
#include "kernels/batch_norm_bwd/numerics/numerics_entry.h"

#include <sstream>

#include "configfile/config_node.h"
#include "kernels/batch_norm_bwd/numerics/validate.h"
#include "kernels/batch_norm_bwd/numerics/validate_report.h"
#include "kernels/kernel_entry.h"
#include "kernels/numerics_keys.h"
#include "numerics/npy.h"

namespace bnsim::bn {
namespace {

void parse_section(ConfigNode* n, ConfigNode* pr, ConfigNode* tol, std::any& params) {
    Params& p = std::any_cast<Params&>(params);
    if (n) {
        p.inputs.seed = uint64_t(n->integer("seed", 0, int64_t(1) << 62, 1));
        p.inputs.x_in = parse_distribution(*n, "x_in", p.inputs.x_in);
        p.inputs.dy = parse_distribution(*n, "dy", p.inputs.dy);
        parse_range(*n, "gamma", p.inputs.gamma_lo, p.inputs.gamma_hi);
        parse_range(*n, "beta", p.inputs.beta_lo, p.inputs.beta_hi);
    }
    if (pr) {
        p.dyx_dtype = *dtype_from_name(pr->choice("dyx_product", {"float32", "bfloat16"}, "float32"));
        p.compute_dtype = *dtype_from_name(pr->choice("intermediates", {"bfloat16", "float32"}, "bfloat16"));
    }
    if (tol) p.relu_kink = tol->real("relu_kink", 0.0, 1e30, 1e-5);
}

uint64_t bytes_needed(const std::any& params, const Trace& trace, const KernelTarget& t) {
    return validate_bytes_needed(trace, kernel_params<Params>(params), t.partitions, t.sbuf_usable_bytes);
}

uint64_t streamed_bytes(const std::any& params, const Trace& trace, const KernelTarget& t,
                        const num::ExecutionOrder& order) {
    return streamed_bytes_needed(trace, kernel_params<Params>(params), t.partitions, t.sbuf_usable_bytes, order);
}

std::string describe_generated(const BnInputs& in, const InputSpec& s) {
    std::ostringstream o;
    o << in.source << ": x_in " << describe(s.x_in) << ", dy " << describe(s.dy) << ", gamma U[" << s.gamma_lo << ", "
      << s.gamma_hi << "], beta U[" << s.beta_lo << ", " << s.beta_hi << "]; statistics from x_in";
    return o.str();
}

BnInputs load_inputs(const ValidateRequest& req, const Params& p) {
    try {
        BnInputs in = req.inputs_dir.empty() ? generate_inputs(p, p.inputs) : read_inputs(req.inputs_dir, p);
        if (req.save_inputs) req.save_inputs(input_files(in));
        return in;
    } catch (const num::NpyError& e) {
        throw KernelError(e.what());  // a user problem with the files: exit status 2
    }
}

// A streamed run generates its inputs page by page and checks dx tile by tile: whole-tensor
// files (--inputs, --save-inputs, --outputs) are not available.
void require_streamable(const ValidateRequest& req) {
    const char* what = !req.inputs_dir.empty() ? "--inputs" : req.save_inputs ? "--save-inputs"
                     : req.write_outputs ? "--outputs" : nullptr;
    if (what)
        throw KernelError(std::string(what) + " needs the whole tensors in memory, but this validation streams them "
                          "(its tensors do not fit in the memory limit, or numerics.streaming is always); "
                          "validate a smaller shape, raise numerics.memory_limit_bytes, or drop " + what);
}

KernelValidation run_validation(const ValidateRequest& req) {
    const Params& p = kernel_params<Params>(*req.params);
    if (req.streamed) require_streamable(req);
    const BnInputs in = req.streamed ? generate_columns(p, p.inputs) : load_inputs(req, p);
    ValidateOptions vo;
    vo.scale_bias_operand_bits = req.settings.scale_bias_operand_bits;
    vo.tolerance_scale = req.settings.tolerance_scale;
    vo.relu_kink = p.relu_kink;
    vo.partitions = req.target.partitions;
    vo.sbuf_bytes_per_partition = req.target.sbuf_usable_bytes;
    const ValidateResult r = req.streamed ? validate_streamed(*req.trace, p, in, vo, req.run)
                                          : validate_batch_norm_bwd(*req.trace, p, in, vo, req.run);
    if (req.write_outputs) req.write_outputs(output_files(p, r));

    KernelValidation v;
    v.result.outputs = {r.dx, r.dgamma, r.dbeta};
    v.result.hazards = r.hazards;
    v.result.dependency_edges_checked = r.dependency_edges_checked;
    v.result.instructions = r.instructions;
    v.result.pass = r.pass;
    v.result.phase_seconds = r.phase_seconds;
    v.inputs = req.inputs_dir.empty() ? describe_generated(in, p.inputs) : in.source;
    describe_validation(p, req, r, v);
    return v;
}

}  // namespace

const KernelNumerics& numerics_entry() {
    static const KernelNumerics n{parse_section, bytes_needed, run_validation, streamed_bytes};
    return n;
}

}  // namespace bnsim::bn
