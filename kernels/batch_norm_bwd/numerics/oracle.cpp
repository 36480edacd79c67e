#include "kernels/batch_norm_bwd/numerics/oracle.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace bnsim::oracle {
namespace {

// Pairwise (cascade) float32 summation, as vectorised framework reductions do.
float pairwise_sum(const float* v, size_t n) {
    if (n <= 128) {
        float s = 0.0f;
        for (size_t i = 0; i < n; ++i) s += v[i];
        return s;
    }
    const size_t h = n / 2;
    return pairwise_sum(v, h) + pairwise_sum(v + h, n - h);
}

}  // namespace

ChannelSums torch_float32_channel(const Problem& p, int64_t c, const DxRowSink& sink, uint8_t* mask) {
    const int64_t B = p.B, C = p.C, S = p.S, N = p.N();
    // Per-thread scratch: a channel's [B, S] products and one row of each input.
    thread_local std::vector<float> dyp, prod, xr, dyr, row;
    dyp.resize(size_t(N));
    prod.resize(size_t(N));
    xr.resize(size_t(S));
    dyr.resize(size_t(S));
    row.resize(size_t(S));
    const float rs = 1.0f / std::sqrt(p.variances[c] + float(p.eps));
    const float mean = p.means[c], ga = p.gamma[c], be = p.beta[c];
    for (int64_t b = 0; b < B; ++b) {
        const int64_t base = (b * C + c) * S;
        p.x.row(base, S, xr.data());
        p.dy.row(base, S, dyr.data());
        if (!p.fuse_relu) {  // m = 1: the same arithmetic in a loop that vectorizes
            float* dp = dyp.data() + b * S;
            float* pr = prod.data() + b * S;
            for (int64_t s = 0; s < S; ++s) {
                const float xh = (xr[size_t(s)] - mean) * rs;
                const float d = dyr[size_t(s)] * 1.0f;
                dp[s] = d;
                pr[s] = d * xh;
            }
            continue;
        }
        for (int64_t s = 0; s < S; ++s) {
            const int64_t i = base + s;
            const float xh = (xr[size_t(s)] - mean) * rs;
            float m = 1.0f;
            if (p.fuse_relu) {
                if (p.mask) {
                    m = p.mask[i] ? 1.0f : 0.0f;
                } else {
                    const float fwd = xh * ga + be;
                    m = fwd > 0.0f ? 1.0f : 0.0f;
                    if (mask) mask[i] = m != 0.0f;
                }
            }
            const float d = dyr[size_t(s)] * m;
            dyp[size_t(b * S + s)] = d;
            prod[size_t(b * S + s)] = d * xh;
        }
    }
    ChannelSums r;
    r.dbeta = pairwise_sum(dyp.data(), size_t(N));
    r.dgamma = pairwise_sum(prod.data(), size_t(N));
    if (!sink) return r;
    const float invn = 1.0f / float(N);
    const float scale = ga * rs, mb = r.dbeta * invn, mg = r.dgamma * invn;
    for (int64_t b = 0; b < B; ++b) {
        const int64_t base = (b * C + c) * S;
        p.x.row(base, S, xr.data());
        for (int64_t s = 0; s < S; ++s) {
            const float xh = (xr[size_t(s)] - mean) * rs;
            const float d = dyp[size_t(b * S + s)];
            row[size_t(s)] = scale * (d - mb - xh * mg);
        }
        sink(b * C + c, row.data());
    }
    return r;
}

Float32Result torch_float32(const Problem& p, const DxRowSink& sink) {
    Float32Result r;
    const int64_t C = p.C, S = p.S;
    if (!sink) r.dx.resize(size_t(p.size()));
    r.dgamma.resize(size_t(C));
    r.dbeta.resize(size_t(C));
    if (p.fuse_relu && !p.mask) r.mask.resize(size_t(p.size()));
    auto keep = [&](int64_t row, const float* dx) { std::copy(dx, dx + S, r.dx.data() + row * S); };
    for (int64_t c = 0; c < C; ++c) {
        const ChannelSums cs = torch_float32_channel(p, c, sink ? sink : DxRowSink(keep), r.mask.empty() ? nullptr : r.mask.data());
        r.dgamma[size_t(c)] = cs.dgamma;
        r.dbeta[size_t(c)] = cs.dbeta;
    }
    return r;
}

Reference64::Reference64(const Problem& p, const ChannelLoop& loop) : p_(p) {
    const int64_t B = p.B, C = p.C, S = p.S;
    rstd_.resize(size_t(C));
    dbeta_.assign(size_t(C), 0.0);
    dgamma_.assign(size_t(C), 0.0);
    dy_l2_.assign(size_t(C), 0.0);
    dyx_sum_.assign(size_t(C), 0.0);
    dyx_l2_.assign(size_t(C), 0.0);
    for (int64_t c = 0; c < C; ++c) rstd_[size_t(c)] = 1.0 / std::sqrt(double(p.variances[c]) + p.eps);
    // Each channel's sums over its rows, b = 0..B-1 in order (the same for any loop).
    auto channel = [&](int64_t c) {
        thread_local std::vector<float> xr, dyr;
        xr.resize(2 * size_t(S));
        dyr.resize(2 * size_t(S));
        const double mean = p.means[c], rs = rstd_[size_t(c)], ga = p.gamma[c], be = p.beta[c];
        // Without a mask: two rows side by side (each summed in its own order, the two chains
        // of additions overlapping), added to the channel's sums in b order.
        int64_t b = 0;
        for (; !p.fuse_relu && b + 2 <= B; b += 2) {
            for (int r = 0; r < 2; ++r) {
                p.x.row(((b + r) * C + c) * S, S, xr.data() + size_t(r * S));
                p.dy.row(((b + r) * C + c) * S, S, dyr.data() + size_t(r * S));
            }
            const float *x0 = xr.data(), *x1 = x0 + S, *d0 = dyr.data(), *d1 = d0 + S;
            double sb0 = 0, sg0 = 0, s20 = 0, sx0 = 0, sxx0 = 0, sb1 = 0, sg1 = 0, s21 = 0, sx1 = 0, sxx1 = 0;
            for (int64_t s = 0; s < S; ++s) {
                const double xh0 = (double(x0[s]) - mean) * rs, xh1 = (double(x1[s]) - mean) * rs;
                const double e0 = double(d0[s]), e1 = double(d1[s]);
                sb0 += e0;
                sb1 += e1;
                sg0 += e0 * xh0;
                sg1 += e1 * xh1;
                s20 += e0 * e0;
                s21 += e1 * e1;
                const double p0 = e0 * double(x0[s]), p1 = e1 * double(x1[s]);
                sx0 += p0;
                sx1 += p1;
                sxx0 += p0 * p0;
                sxx1 += p1 * p1;
            }
            const double row_sums[2][5] = {{sb0, sg0, s20, sx0, sxx0}, {sb1, sg1, s21, sx1, sxx1}};
            for (int r = 0; r < 2; ++r) {
                dbeta_[size_t(c)] += row_sums[r][0];
                dgamma_[size_t(c)] += row_sums[r][1];
                dy_l2_[size_t(c)] += row_sums[r][2];
                dyx_sum_[size_t(c)] += row_sums[r][3];
                dyx_l2_[size_t(c)] += row_sums[r][4];
            }
        }
        for (; b < B; ++b) {
            const int64_t base = (b * C + c) * S;
            p.x.row(base, S, xr.data());
            p.dy.row(base, S, dyr.data());
            double sb = 0, sg = 0, s2 = 0, sx = 0, sx2 = 0;
            for (int64_t s = 0; s < S; ++s) {
                const int64_t i = base + s;
                const double xh = (double(xr[size_t(s)]) - mean) * rs;
                bool m = true;
                if (p.fuse_relu) m = p.mask ? p.mask[i] != 0 : xh * ga + be > 0.0;
                if (!m) continue;
                const double d = double(dyr[size_t(s)]);
                sb += d;
                sg += d * xh;
                s2 += d * d;
                const double dx = d * double(xr[size_t(s)]);
                sx += dx;
                sx2 += dx * dx;
            }
            dbeta_[size_t(c)] += sb;
            dgamma_[size_t(c)] += sg;
            dy_l2_[size_t(c)] += s2;
            dyx_sum_[size_t(c)] += sx;
            dyx_l2_[size_t(c)] += sx2;
        }
    };
    if (loop) loop(C, channel);
    else
        for (int64_t c = 0; c < C; ++c) channel(c);
    for (int64_t c = 0; c < C; ++c) {
        dy_l2_[size_t(c)] = std::sqrt(dy_l2_[size_t(c)]);
        dyx_l2_[size_t(c)] = std::sqrt(dyx_l2_[size_t(c)]);
    }
}

void Reference64::dx_row(int64_t row, const Coefficients& k, const std::vector<int64_t>& flipped, size_t& cursor,
                         double* out) const {
    const int64_t c = row % p_.C, S = p_.S, base = row * S;
    const double mean = p_.means[c], rs = rstd_[size_t(c)], ga = p_.gamma[c], be = p_.beta[c];
    const double a = k.a[size_t(c)], b = k.b[size_t(c)], g = k.g[size_t(c)];
    while (cursor < flipped.size() && flipped[cursor] < base) ++cursor;
    thread_local std::vector<float> xr, dyr;
    xr.resize(size_t(S));
    dyr.resize(size_t(S));
    p_.x.row(base, S, xr.data());
    p_.dy.row(base, S, dyr.data());
    if (!p_.fuse_relu && (cursor == flipped.size() || flipped[cursor] >= base + S)) {
        // No mask and no flip in this row: the same arithmetic in a loop that vectorizes.
        for (int64_t s = 0; s < S; ++s) {
            const double xh = (double(xr[size_t(s)]) - mean) * rs;
            out[s] = a * (double(dyr[size_t(s)]) - b - xh * g);
        }
        return;
    }
    for (int64_t s = 0; s < S; ++s) {
        const int64_t i = base + s;
        const double xh = (double(xr[size_t(s)]) - mean) * rs;
        bool m = true;
        if (p_.fuse_relu) m = p_.mask ? p_.mask[i] != 0 : xh * ga + be > 0.0;
        if (cursor < flipped.size() && flipped[cursor] == i) {
            m = !m;
            ++cursor;
        }
        out[s] = a * ((m ? double(dyr[size_t(s)]) : 0.0) - b - xh * g);
    }
}

Coefficients Reference64::coefficients(const std::vector<int64_t>& flipped) const {
    Coefficients k;
    k.dbeta = dbeta_;
    k.dgamma = dgamma_;
    for (int64_t i : flipped) {
        const double sign = mask(i) ? -1.0 : 1.0;  // the flip removes or adds this element
        const double d = double(p_.dy[i]);
        k.dbeta[size_t(chan(i))] += sign * d;
        k.dgamma[size_t(chan(i))] += sign * d * x_hat(i);
    }
    const size_t C = size_t(p_.C);
    const double N = double(p_.N());
    k.a.resize(C);
    k.b.resize(C);
    k.g.resize(C);
    for (size_t c = 0; c < C; ++c) {
        k.a[c] = double(p_.gamma[c]) * rstd_[c];
        k.b[c] = k.dbeta[c] / N;
        k.g[c] = k.dgamma[c] / N;
    }
    return k;
}

}  // namespace bnsim::oracle
