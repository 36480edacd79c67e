#pragma once
// Inputs of batch_norm_bwd on real data: generated from a seed with configurable
// distributions, or read from .npy files; and the outputs written back as .npy.
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/batch_norm_bwd/params.h"
#include "numerics/buffer.h"
#include "numerics/npy.h"

namespace bnsim::num {

struct Distribution {
    enum Kind { normal, uniform } kind = normal;
    double mean = 0.0;
    double spread = 1.0;  // normal: standard deviation; uniform: half-width around the mean
};

struct InputSpec {
    uint64_t seed = 1;
    Distribution x_in{Distribution::normal, 0.0, 1.0};
    Distribution dy{Distribution::normal, 0.0, 1.0};
    double gamma_lo = 0.5, gamma_hi = 1.5;
    double beta_lo = -0.5, beta_hi = 0.5;
};

// All values as fp32; dy and x_in already rounded to the run's dtype.
struct BnInputs {
    bn::Shape shape;
    DType dtype = DType::bf16;
    BigVector<float> dy, x_in;                        // [B, C, D, H, W]
    std::vector<float> means, variances, gamma, beta;  // [C]
    BigVector<uint8_t> relu_mask;                     // [B, C, D, H, W] when supplied
    std::string source;                               // "generated (seed N)" or the directory
};

// Statistics from x_in as the forward pass computes them (mean and biased variance per channel,
// accumulated in float64, stored fp32); the supplied mask, if any, is where the float64 forward
// output is positive. Runs on `threads` threads (0: one per hardware thread); the values are the
// same for any thread count.
BnInputs generate_inputs(const bn::Params& p, const InputSpec& spec, int threads = 0);

// Reads dy.npy, x_in.npy, means.npy, variances.npy, gamma.npy, beta.npy and, when the run uses a
// supplied mask, relu_mask.npy from dir. dy/x_in are float32 (rounded to the run's dtype), the
// mask uint8 or bool; shapes are checked against the run config. Throws NpyError naming the file.
// Values must be finite (the error names the file and the first bad element's flat index).
BnInputs read_inputs(const std::string& dir, const bn::Params& p);
// The files read_inputs reads, for the caller to write (they refer to in: use them while it lives).
std::vector<NpyFile> input_files(const BnInputs& in);

// Bytes generate/read hold for a shape (for the up-front memory check).
uint64_t input_bytes(const bn::Params& p);

// Rounds to the run's dtype (bf16 by round-to-nearest-even).
void round_to_dtype(BigVector<float>& v, DType dt);

}  // namespace bnsim::num
