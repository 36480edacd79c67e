#pragma once
// The oracle: batch norm backward straight from torch's formula, written independently of the
// trace executor (these two files include nothing from the rest of bnsim and share no code with
// it), in two precisions:
//   - torch_float32: the formula evaluated in float32 as an eager framework would (float32
//     elementwise math, pairwise float32 reductions), including its own float32 recomputation
//     of the ReLU mask;
//   - Reference64: the same formula in float64, the yardstick both the emulated kernel and the
//     float32 oracle are measured against.
//
//   rstd = 1/sqrt(var + eps), x_hat = (x - mean) * rstd, dy' = dy * mask,
//   dbeta = sum(dy'), dgamma = sum(dy' * x_hat), dx = gamma * rstd * (dy' - dbeta/N - x_hat * dgamma/N)
//   (sums over batch and spatial; N = B * spatial). Mask: 1 without fuse_relu; the supplied one;
//   or (forward output > 0) with forward output = x_hat * gamma + beta.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <vector>

namespace bnsim::oracle {
using std::size_t;

// A [B, C, S] input as the kernel reads it: float32, or bfloat16 (the upper 16 bits of a
// float32, so every value converts exactly). Its rows of `len` elements lie contiguously, or
// `stride` elements apart in a larger array (a view of one channel's rows, not a copy).
struct Values {
    const void* data = nullptr;
    bool bf16 = false;
    int64_t len = 0, stride = 0;  // stride 0: rows contiguous
    Values() = default;
    Values(const float* f) : data(f) {}
    Values(const void* d, bool is_bf16) : data(d), bf16(is_bf16) {}
    Values(const void* d, bool is_bf16, int64_t row_len, int64_t row_stride)
        : data(d), bf16(is_bf16), len(row_len), stride(row_stride) {}
    // Where element i lies in memory.
    int64_t at(int64_t i) const { return stride ? i / len * stride + i % len : i; }
    float operator[](int64_t i) const {
        i = at(i);
        if (!bf16) return static_cast<const float*>(data)[i];
        const uint32_t u = uint32_t(static_cast<const uint16_t*>(data)[i]) << 16;
        float f;
        std::memcpy(&f, &u, 4);
        return f;
    }
    // Elements [i0, i0 + n) of one row into out (one loop per dtype, so it vectorizes).
    void row(int64_t i0, int64_t n, float* out) const {
        i0 = at(i0);
        if (!bf16) {
            std::memcpy(out, static_cast<const float*>(data) + i0, size_t(n) * 4);
            return;
        }
        const uint16_t* h = static_cast<const uint16_t*>(data) + i0;
        for (int64_t k = 0; k < n; ++k) {
            const uint32_t u = uint32_t(h[k]) << 16;
            std::memcpy(out + k, &u, 4);
        }
    }
};

struct Problem {
    int64_t B = 0, C = 0, S = 0;  // S = D*H*W; tensors are [B, C, S] row-major
    Values dy;
    Values x;
    const float* means = nullptr;      // [C]
    const float* variances = nullptr;  // [C]
    const float* gamma = nullptr;      // [C]
    const float* beta = nullptr;       // [C]
    bool fuse_relu = false;
    const uint8_t* mask = nullptr;     // supplied mask [B, C, S], or null to recompute
    double eps = 1e-5;
    int64_t N() const { return B * S; }
    int64_t size() const { return B * C * S; }
};

struct Float32Result {
    std::vector<float> dx;      // [B, C, S] (empty when the rows went to a sink)
    std::vector<float> dgamma;  // [C]
    std::vector<float> dbeta;   // [C]
    std::vector<uint8_t> mask;  // the mask it recomputed (fuse_relu without a supplied mask), else empty
};

// Receives dx one [S] row at a time (row = b*C + c), in channel-major order, instead of the
// oracle holding all of dx.
using DxRowSink = std::function<void(int64_t row, const float* dx)>;
Float32Result torch_float32(const Problem& p, const DxRowSink& sink = nullptr);

// One channel of torch_float32 (channels are independent: callers may run them in parallel):
// its dx rows to the sink (b = 0..B-1), its recomputed mask into mask (when it recomputes one;
// [B, C, S] indexed), and its dgamma and dbeta.
struct ChannelSums {
    float dgamma = 0, dbeta = 0;
};
ChannelSums torch_float32_channel(const Problem& p, int64_t c, const DxRowSink& sink, uint8_t* mask);

// Runs body(c) for every channel c in [0, C), in any order and on any threads (the work of one
// channel touches only that channel's results).
using ChannelLoop = std::function<void(int64_t C, const std::function<void(int64_t c)>& body)>;

// Per-channel coefficients of dx: dx = a * (dy * m - b - x_hat * g).
struct Coefficients {
    std::vector<double> a, b, g;
    std::vector<double> dbeta, dgamma;
};

class Reference64 {
public:
    explicit Reference64(const Problem& p, const ChannelLoop& loop = nullptr);

    // Index of element (b, c, s) is (b*C + c)*S + s.
    double rstd(int64_t c) const { return rstd_[size_t(c)]; }
    double x_hat(int64_t i) const { return (double(p_.x[i]) - double(p_.means[chan(i)])) * rstd_[size_t(chan(i))]; }
    double forward(int64_t i) const { return x_hat(i) * double(p_.gamma[chan(i)]) + double(p_.beta[chan(i)]); }
    // The reference mask: 1 without fuse_relu, the supplied mask, or forward(i) > 0.
    bool mask(int64_t i) const {
        if (!p_.fuse_relu) return true;
        if (p_.mask) return p_.mask[i] != 0;
        return forward(i) > 0.0;
    }
    int64_t chan(int64_t i) const { return (i / p_.S) % p_.C; }

    const std::vector<double>& dbeta() const { return dbeta_; }
    const std::vector<double>& dgamma() const { return dgamma_; }

    // Coefficients with the mask of the given elements replaced (ascending indices): where an
    // implementation's mask legitimately differs (the ReLU kink), it is judged against the
    // reference of its own subgradient choice.
    Coefficients coefficients(const std::vector<int64_t>& flipped = {}) const;
    // Reference dx of one [S] row (row = b*C + c) into out, with the mask of the listed elements
    // (ascending, may extend past this row) flipped; `cursor` walks that list across calls.
    void dx_row(int64_t row, const Coefficients& k, const std::vector<int64_t>& flipped, size_t& cursor,
                double* out) const;
    // Per-channel scales of the sums, for error bounds: sqrt(sum dy'^2), sum dy'*x, sqrt(sum (dy'*x)^2).
    const std::vector<double>& dy_l2() const { return dy_l2_; }
    const std::vector<double>& dyx_sum() const { return dyx_sum_; }
    const std::vector<double>& dyx_l2() const { return dyx_l2_; }
    double dx(int64_t i, bool m, const Coefficients& k) const {
        const int64_t c = chan(i);
        return k.a[size_t(c)] * ((m ? double(p_.dy[i]) : 0.0) - k.b[size_t(c)] - x_hat(i) * k.g[size_t(c)]);
    }

private:
    Problem p_;
    std::vector<double> rstd_, dbeta_, dgamma_;
    std::vector<double> dy_l2_, dyx_sum_, dyx_l2_;
};

}  // namespace bnsim::oracle
