#pragma once
// Validation of batch_norm_bwd on real data: load the inputs into the kernel's HBM tensors, run
// the trace through the functional executor (in the order a runner chooses: the timing
// simulation, or a simple runner), check the execution for hazards, and measure dx, dgamma and
// dbeta against a float64 reference next to the independent float32 oracle.
#include <functional>
#include <string>
#include <vector>

#include "kernels/batch_norm_bwd/params.h"
#include "models/execution_observer.h"
#include "numerics/hazard_checker.h"
#include "numerics/inputs.h"
#include "trace/trace.h"

namespace bnsim::num {

struct ValidateOptions {
    int scale_bias_operand_bits = 18;  // the hardware's per-partition operand path
    double tolerance_scale = 1.0;      // multiplies every derived tolerance
    double relu_kink = 1e-5;           // |forward output| within which either mask value is valid
                                       // (widened where the operand precision resolves less)
    int partitions = 128;
    uint64_t sbuf_bytes_per_partition = 0;
};

// Runs every instruction of the trace, calling the observer's on_start/on_finish.
using Runner = std::function<void(const Trace&, ExecutionObserverIF&)>;

struct ErrorMetrics {
    double max_abs_err = 0;
    double max_rel_err = 0;  // over elements with |ref| >= 1e-3 * max|ref|
    double rel_l2_err = 0;
    double max_abs_ref = 0;
};

struct OutputCheck {
    std::string name;
    ErrorMetrics kernel, oracle;    // against the float64 reference
    double kernel_vs_oracle_rel_l2 = 0;
    std::string tolerance_basis;    // how the tolerance was derived
    double tol_rel_l2 = 0;          // dx: relative L2 bound
    double tol_max_abs = 0;         // dx: elementwise bound; dgamma/dbeta: largest per-channel bound
    double kernel_err_over_tol = 0; // worst ratio of error to its bound (<= 1 passes)
    double oracle_err_over_tol = 0;
    bool kernel_pass = false, oracle_pass = false;
};

struct MaskCheck {
    std::string mode = "none";  // none | supplied | recomputed
    int64_t flips = 0;          // kernel's mask elements differing from the reference mask
    double max_abs_forward_flipped = 0;  // largest |float64 forward output| among them
    int64_t flips_outside_kink = 0;      // flips the operand precision does not explain (errors):
                                         // |forward| > max(relu_kink, 2^(1-bits) (|x*scale| + |bias|))
    int64_t oracle_flips = 0;            // the float32 oracle's own recomputed-mask flips
    double oracle_max_abs_forward_flipped = 0;
    int64_t captured = 0;                // mask elements seen by the probe
};

struct ValidateResult {
    OutputCheck dx, dgamma, dbeta;
    MaskCheck mask;
    std::vector<Hazard> hazards;
    uint64_t dependency_edges_checked = 0;
    uint64_t instructions = 0;
    bool pass = false;
    // The emulated kernel's outputs: dx as its HBM bytes (dtype out_dx_dtype), dgamma, dbeta.
    BigVector<uint8_t> out_dx_bytes;
    DType out_dx_dtype = DType::bf16;
    std::vector<float> out_dgamma, out_dbeta;
    std::vector<float> dx_values() const;  // dx as fp32
    std::vector<std::pair<std::string, double>> phase_seconds;  // wall time of each step
};

ValidateResult validate_batch_norm_bwd(const Trace& trace, const bn::Params& p, const BnInputs& in,
                                       const ValidateOptions& opts, const Runner& run);

// Bytes a validation of this trace holds at its peak: the larger of the execution (inputs,
// device memory, mask record) and the checking that follows (inputs, dx, masks, oracle buffers).
uint64_t validate_bytes_needed(const Trace& trace, const bn::Params& p, int partitions, uint64_t sbuf_bytes_per_partition);

// dx.npy, dgamma.npy, dbeta.npy (float32), for the caller to write while r lives.
std::vector<NpyFile> output_files(const bn::Params& p, const ValidateResult& r);

}  // namespace bnsim::num
