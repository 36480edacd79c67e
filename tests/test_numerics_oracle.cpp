// The oracle itself against values worked out by hand.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "kernels/batch_norm_bwd/numerics/oracle.h"

using namespace bnsim::oracle;

namespace {

// B=1, C=1, spatial 2: x = [1, 3], mean 2, var 1, gamma 2, dy = [1, 2].
struct Tiny {
    float dy[2] = {1.0f, 2.0f}, x[2] = {1.0f, 3.0f};
    float means[1] = {2.0f}, vars[1] = {1.0f}, gamma[1] = {2.0f}, beta[1] = {0.0f};
    // eps = 0.25 keeps dx away from the cancellation a 2-element batch would otherwise have.
    Problem problem(double eps = 0.25) {
        Problem p;
        p.B = 1;
        p.C = 1;
        p.S = 2;
        p.dy = dy;
        p.x = x;
        p.means = means;
        p.variances = vars;
        p.gamma = gamma;
        p.beta = beta;
        p.eps = eps;
        return p;
    }
};

// A [B, 2, S] problem over x and dy, with channel c's mean, variance, gamma and beta at [c].
Problem two_channel_problem(int64_t B, int64_t S, const std::vector<float>& x, const std::vector<float>& dy,
                            const float* means, const float* vars, const float* gamma, const float* beta) {
    Problem p;
    p.B = B;
    p.C = 2;
    p.S = S;
    p.dy = dy.data();
    p.x = x.data();
    p.means = means;
    p.variances = vars;
    p.gamma = gamma;
    p.beta = beta;
    return p;
}

}  // namespace

TEST_CASE("oracle: batch norm backward by hand", "[numerics][oracle]") {
    Tiny t;
    const Problem p = t.problem();
    const double r = 1.0 / std::sqrt(1.0 + 0.25);  // rstd; x_hat = [-r, r]
    // dbeta = 1 + 2 = 3; dgamma = -r + 2r = r; N = 2
    // dx = gamma r (dy - dbeta/N - x_hat dgamma/N) = 2r ([1, 2] - 1.5 - [-r, r] r / 2)
    const double dx0 = 2 * r * (1 - 1.5 + r * r / 2), dx1 = 2 * r * (2 - 1.5 - r * r / 2);
    Reference64 ref(p);
    CHECK(ref.dbeta()[0] == Approx(3.0).epsilon(1e-15));
    CHECK(ref.dgamma()[0] == Approx(r).epsilon(1e-15));
    const Coefficients k = ref.coefficients();
    CHECK(ref.dx(0, true, k) == Approx(dx0).epsilon(1e-14));
    CHECK(ref.dx(1, true, k) == Approx(dx1).epsilon(1e-14));
    Float32Result f = torch_float32(p);
    CHECK(f.dbeta[0] == Approx(3.0).epsilon(1e-6));
    CHECK(f.dgamma[0] == Approx(r).epsilon(1e-6));
    CHECK(f.dx[0] == Approx(dx0).epsilon(1e-6));
    CHECK(f.dx[1] == Approx(dx1).epsilon(1e-6));
}

TEST_CASE("oracle: fused ReLU, recomputed and supplied masks", "[numerics][oracle]") {
    Tiny t;
    t.beta[0] = -0.5f;  // forward = 2 x_hat - 0.5 = [-2.5, 1.5]: mask [0, 1]
    Problem p = t.problem();
    p.fuse_relu = true;
    const double r = 1.0 / std::sqrt(1.0 + 0.25);
    // dy' = [0, 2]: dbeta = 2, dgamma = 2r, dx = 2r ([0, 2] - 1 - [-r, r] 2r / 2)
    const double dx0 = 2 * r * (0 - 1 + r * r), dx1 = 2 * r * (2 - 1 - r * r);
    Reference64 ref(p);
    CHECK_FALSE(ref.mask(0));
    CHECK(ref.mask(1));
    CHECK(ref.forward(0) == Approx(-2 * r - 0.5));
    CHECK(ref.dbeta()[0] == Approx(2.0));
    CHECK(ref.dgamma()[0] == Approx(2 * r));
    const Coefficients k = ref.coefficients();
    CHECK(ref.dx(0, false, k) == Approx(dx0).epsilon(1e-14));
    CHECK(ref.dx(1, true, k) == Approx(dx1).epsilon(1e-14));
    Float32Result f = torch_float32(p);
    REQUIRE(f.mask.size() == 2);
    CHECK(f.mask[0] == 0);
    CHECK(f.mask[1] == 1);
    CHECK(f.dx[0] == Approx(dx0).epsilon(1e-6));
    CHECK(f.dx[1] == Approx(dx1).epsilon(1e-6));
    // A supplied mask wins over the forward output, and a flipped element moves the sums.
    const uint8_t m[2] = {1, 1};
    p.mask = m;
    Reference64 sup(p);
    CHECK(sup.dbeta()[0] == Approx(3.0));
    const Coefficients kf = ref.coefficients({0});  // element 0 taken as passing instead
    CHECK(kf.dbeta[0] == Approx(3.0));
    CHECK(kf.dgamma[0] == Approx(r));
    CHECK(torch_float32(p).mask.empty());
}

TEST_CASE("oracle: Reference64 adds each row in element order, then the rows in batch order", "[numerics][oracle]") {
    // B = 7 takes every grouping of rows the constructor uses (four, two, one); S = 13 leaves a
    // remainder after groups of four elements. The sums must be those of this plain loop, bit for bit.
    const int64_t B = 7, C = 2, S = 13;
    std::vector<float> x(size_t(B * C * S)), dy(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
        x[i] = float(std::sin(0.7 * double(i)) * 3.0 + 0.25);
        dy[i] = float(std::cos(1.3 * double(i)) * 0.5);
    }
    float means[2] = {0.2f, 0.3f}, vars[2] = {4.5f, 3.9f}, gamma[2] = {1.0f, 0.5f}, beta[2] = {0.0f, 0.1f};
    const Problem p = two_channel_problem(B, S, x, dy, means, vars, gamma, beta);
    const Reference64 ref(p);
    for (int64_t c = 0; c < C; ++c) {
        const double rs = 1.0 / std::sqrt(double(vars[c]) + p.eps);
        double sums[5] = {0, 0, 0, 0, 0};
        for (int64_t b = 0; b < B; ++b) {
            double row[5] = {0, 0, 0, 0, 0};
            for (int64_t s = 0; s < S; ++s) {
                const size_t i = size_t((b * C + c) * S + s);
                const double xv = double(x[i]), e = double(dy[i]), xh = (xv - double(means[c])) * rs;
                row[0] += e;
                row[1] += e * xh;
                row[2] += e * e;
                row[3] += e * xv;
                row[4] += (e * xv) * (e * xv);
            }
            for (int k = 0; k < 5; ++k) sums[k] += row[k];
        }
        INFO("channel " << c);
        CHECK(ref.dbeta()[size_t(c)] == sums[0]);
        CHECK(ref.dgamma()[size_t(c)] == sums[1]);
        CHECK(ref.dy_l2()[size_t(c)] == std::sqrt(sums[2]));
        CHECK(ref.dyx_sum()[size_t(c)] == sums[3]);
        CHECK(ref.dyx_l2()[size_t(c)] == std::sqrt(sums[4]));
    }
}

namespace {

// torch's pairwise float32 sum, written out: halves down to at most 128 values, each added in order.
float pairwise_by_hand(const float* v, size_t n) {
    if (n <= 128) {
        float s = 0.0f;
        for (size_t i = 0; i < n; ++i) s += v[i];
        return s;
    }
    return pairwise_by_hand(v, n / 2) + pairwise_by_hand(v + n / 2, n - n / 2);
}

}  // namespace

TEST_CASE("oracle: the float32 sums are pairwise over each channel's B x S values, bit for bit", "[numerics][oracle]") {
    // N = B * S from one leaf to many leaves of mixed lengths (the oracle may add several
    // leaves at once: the result must not change).
    for (const auto& [B, S] : {std::pair<int64_t, int64_t>{1, 100}, {3, 61}, {2, 1031}, {5, 4099}, {8, 8192}}) {
        const int64_t C = 2;
        std::vector<float> x(size_t(B * C * S)), dy(x.size());
        for (size_t i = 0; i < x.size(); ++i) {
            x[i] = float(std::sin(0.37 * double(i)));
            dy[i] = float(std::cos(0.11 * double(i)) * 1.5 + 0.01);
        }
        float means[2] = {0.0f, 0.1f}, vars[2] = {0.5f, 0.4f}, gamma[2] = {1.0f, 1.0f}, beta[2] = {0.0f, 0.0f};
        const Problem p = two_channel_problem(B, S, x, dy, means, vars, gamma, beta);
        for (int64_t c = 0; c < C; ++c) {
            std::vector<float> chan;  // channel c's dy in (b, s) order
            for (int64_t b = 0; b < B; ++b)
                for (int64_t s = 0; s < S; ++s) chan.push_back(dy[size_t((b * C + c) * S + s)]);
            INFO("B " << B << " S " << S << " channel " << c);
            CHECK(torch_float32_channel(p, c, nullptr, nullptr).dbeta == pairwise_by_hand(chan.data(), chan.size()));
        }
    }
}
