#pragma once
// Validation of batch_norm_bwd on real data: load the inputs into the kernel's HBM tensors, run
// the trace through the functional executor (in the order a runner chooses: the timing
// simulation, or a simple runner), check the execution for hazards, and measure dx, dgamma and
// dbeta against a float64 reference next to the independent float32 oracle.
#include <string>
#include <vector>

#include "kernels/batch_norm_bwd/numerics/inputs.h"
#include "kernels/batch_norm_bwd/params.h"
#include "numerics/execution_order.h"
#include "numerics/npy.h"
#include "numerics/validation.h"

namespace bnsim::bn {

struct ValidateOptions {
    int scale_bias_operand_bits = 18;  // the hardware's per-partition operand path
    double tolerance_scale = 1.0;      // multiplies every derived tolerance
    double relu_kink = 1e-5;           // |forward output| within which either mask value is valid
                                       // (widened where the operand precision resolves less)
    int partitions = 128;
    uint64_t sbuf_bytes_per_partition = 0;
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
    num::OutputCheck dx, dgamma, dbeta;
    MaskCheck mask;
    std::vector<num::Hazard> hazards;
    uint64_t dependency_edges_checked = 0;
    uint64_t instructions = 0;
    bool pass = false;
    // The emulated kernel's outputs: dx as its HBM bytes (dtype out_dx_dtype), dgamma, dbeta.
    num::BigVector<uint8_t> out_dx_bytes;
    DType out_dx_dtype = DType::bf16;
    std::vector<float> out_dgamma, out_dbeta;
    std::vector<float> dx_values() const;  // dx as fp32
    std::vector<std::pair<std::string, double>> phase_seconds;  // wall time of each step
};

ValidateResult validate_batch_norm_bwd(const Trace& trace, const Params& p, const BnInputs& in,
                                       const ValidateOptions& opts, const num::Runner& run);

// The same validation, streamed for a shape whose tensors do not fit in memory whole: the HBM
// tensors are paged (numerics/hbm_pages.h), the inputs generated page by page as the trace reads
// them (cols holds the per-channel values, generate_columns), and each channel tile is checked
// as soon as the run has made all of its dx final, then released. The figures are the same as
// validate_batch_norm_bwd's on the same inputs; dx is not kept (out_dx_bytes stays empty).
ValidateResult validate_streamed(const Trace& trace, const Params& p, const BnInputs& cols, const ValidateOptions& opts,
                                 const num::Runner& run);

// Bytes a validation of this trace holds at its peak: the larger of the execution (inputs,
// device memory, mask record) and the checking that follows (inputs, dx, masks, oracle buffers).
uint64_t validate_bytes_needed(const Trace& trace, const Params& p, int partitions, uint64_t sbuf_bytes_per_partition);

// Bytes the streamed validation holds at its peak when the run reports `order` (walked with
// HbmPages holding no data): the SBUF images, the executor's buffers, the resident HBM pages,
// each channel tile's dx and applied mask until its check, and the check's buffers on each
// hardware thread (so, unlike the whole run's estimate, it depends on the machine's threads).
uint64_t streamed_bytes_needed(const Trace& trace, const Params& p, int partitions, uint64_t sbuf_bytes_per_partition,
                               const num::ExecutionOrder& order);

// dx.npy, dgamma.npy, dbeta.npy (float32), for the caller to write while r lives.
std::vector<num::NpyFile> output_files(const Params& p, const ValidateResult& r);

}  // namespace bnsim::bn
