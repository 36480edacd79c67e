// The oracle itself against values worked out by hand.
#include <catch2/catch.hpp>

#include <cmath>

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
