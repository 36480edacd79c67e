#pragma once
// Inputs of batch_norm_bwd as a run config gives them: shapes, dtype and flags, plus an optional
// explicit memory config that replaces the kernel's own search.
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <stdexcept>

#include "numerics/random.h"
#include "trace/dtype.h"

namespace bnsim::bn {

// Element counts are products of dimensions each up to 2^31; a run config's shape is refused
// unless B*C*D*H*W is at most 2^kMaxElementsLog2, so every later count and byte size fits int64.
constexpr int kMaxElementsLog2 = 53;

struct Shape {
    int64_t B = 0, C = 0, D = 1, H = 0, W = 0;
    int64_t spatial() const { return checked({D, H, W}); }
    int64_t elements() const { return checked({B, C, D, H, W}); }
    // B*C*D*H*W when every dimension is >= 1 and the product is at most 2^kMaxElementsLog2.
    std::optional<int64_t> checked_elements() const {
        int64_t n = 1;
        for (int64_t d : {B, C, D, H, W})
            if (d < 1 || __builtin_mul_overflow(n, d, &n) || n > (int64_t(1) << kMaxElementsLog2)) return std::nullopt;
        return n;
    }

private:
    static int64_t checked(std::initializer_list<int64_t> dims) {
        int64_t n = 1;
        for (int64_t d : dims)
            if (__builtin_mul_overflow(n, d, &n)) throw std::overflow_error("batch_norm_bwd: shape product overflows int64");
        return n;
    }
};

// What a run config fixes of the memory config; the kernel's search fills in the rest (all
// empty: the kernel's own choice, "auto").
struct MemoryChoice {
    std::optional<int64_t> f_tile;
    std::optional<int> interleave;
    std::optional<bool> direct_x_residency;  // the kernel's own choice: true
};

// How `bnsim validate` generates the kernel's inputs (the `numerics:` section's keys).
struct InputSpec {
    uint64_t seed = 1;
    num::Distribution x_in{num::Distribution::normal, 0.0, 1.0};
    num::Distribution dy{num::Distribution::normal, 0.0, 1.0};
    double gamma_lo = 0.5, gamma_hi = 1.5;
    double beta_lo = -0.5, beta_hi = 0.5;
};

struct Params {
    Shape shape;
    DType dtype = DType::bf16;
    bool fuse_relu = false;
    bool mask_supplied = false;  // relu_mask: supplied (only read when fuse_relu)
    double eps = 1e-5;
    std::optional<MemoryChoice> memory;  // nullopt: the kernel's search ("auto")
    // Numerics what-ifs (defaults are the kernel's): dtype of the dy'*x_in product tile, and of
    // the per-element intermediates (direct_x, var_x, loaded mask, rebuilt post_bn).
    DType dyx_dtype = DType::fp32;
    DType compute_dtype = DType::bf16;
    // Validation only (no effect on the trace): input generation and the ReLU kink band.
    InputSpec inputs;
    double relu_kink = 1e-5;  // |forward output| within which either mask value is valid

    bool uses_mask() const { return fuse_relu && mask_supplied; }
    bool recomputes_mask() const { return fuse_relu && !mask_supplied; }
};

// Constants of the NKI kernel.
constexpr int64_t kMaxFTile = 8192;
constexpr uint64_t kSbufReserve = 1024;
constexpr int kMaxInterleave = 8;
constexpr int kMinInterleave = 1;
constexpr int kQuadrant = 32;
constexpr int kPMax = 128;
constexpr DType kComputeDType = DType::bf16;  // direct_x, var_x, loaded mask, rebuilt post_bn

// Throws KernelError with the condition the kernel checks, in our own words.
void validate(const Params& p, int num_cores);

}  // namespace bnsim::bn
