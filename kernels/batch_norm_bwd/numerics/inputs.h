#pragma once
// Inputs of batch_norm_bwd on real data: generated from a seed with configurable
// distributions, or read from .npy files; and written back as .npy.
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/batch_norm_bwd/params.h"
#include "numerics/buffer.h"
#include "numerics/npy.h"
#include "numerics/typed_array.h"

namespace bnsim::bn {

using num::BigVector;

// dy and x_in in the run's dtype (the bytes of the kernel's HBM tensors, lent to the execution,
// never held twice); the per-channel values as fp32.
struct BnInputs {
    Shape shape;
    DType dtype = DType::bf16;
    num::TypedArray dy, x_in;                         // [B, C, D, H, W]
    std::vector<float> means, variances, gamma, beta;  // [C]
    BigVector<uint8_t> relu_mask;                     // [B, C, D, H, W] when supplied
    std::string source;                               // "generated (seed N)" or the directory
};

// Statistics from x_in as the forward pass computes them (mean and biased variance per channel,
// accumulated in float64, stored fp32); the supplied mask, if any, is where the float64 forward
// output is positive. Runs on `threads` threads (0: one per hardware thread); the values are the
// same for any thread count.
BnInputs generate_inputs(const Params& p, const InputSpec& spec, int threads = 0);

// The salts of dy's and x_in's streams of generated values.
constexpr uint64_t kSaltX = 1, kSaltDy = 2;

// What generate_inputs gives, without dy and x_in (and the mask): the per-channel values only,
// the statistics computed from x_in's rows generated one at a time. For a streamed run.
BnInputs generate_columns(const Params& p, const InputSpec& spec, int threads = 0);
// Rows [lo, hi) (row = b*C + c) of the generated x_in (salt kSaltX) or dy (kSaltDy), in the run's
// dtype: the same bytes generate_inputs holds.
void generate_rows(const Params& p, const InputSpec& spec, uint64_t salt, uint64_t lo, uint64_t hi, uint8_t* dst);
// The supplied mask of generated inputs for rows [lo, hi), from those rows of x_in (run's dtype)
// and the per-channel values: where the float64 forward output is positive.
void mask_rows(const Params& p, const BnInputs& cols, uint64_t lo, uint64_t hi, const uint8_t* x, uint8_t* out);

// Reads dy.npy, x_in.npy, means.npy, variances.npy, gamma.npy, beta.npy and, when the run uses a
// supplied mask, relu_mask.npy from dir. dy/x_in are float32 (rounded to the run's dtype), the
// mask uint8 or bool; shapes are checked against the run config. Throws NpyError naming the file.
// Values must be finite (the error names the file and the first bad element's flat index).
BnInputs read_inputs(const std::string& dir, const Params& p);
// The files read_inputs reads, for the caller to write (they refer to in: use them while it lives).
std::vector<num::NpyFile> input_files(const BnInputs& in);

// Bytes generate/read hold for a shape (for the up-front memory check).
uint64_t input_bytes(const Params& p);

}  // namespace bnsim::bn
