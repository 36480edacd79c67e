#include "kernels/numerics_keys.h"

#include <sstream>

namespace bnsim {

num::Distribution parse_distribution(ConfigNode& parent, const std::string& key, num::Distribution d) {
    auto n = parent.optional_child(key);
    if (!n) return d;
    d.kind = n->choice("distribution", {"normal", "uniform"}, d.kind == num::Distribution::normal ? "normal" : "uniform") ==
                     "normal"
                 ? num::Distribution::normal
                 : num::Distribution::uniform;
    d.mean = n->real("mean", -1e30, 1e30, d.mean);
    d.spread = n->real("spread", 0.0, 1e30, d.spread);
    n->finish();
    return d;
}

void parse_range(ConfigNode& parent, const std::string& key, double& lo, double& hi) {
    auto n = parent.optional_child(key);
    if (!n) return;
    lo = n->real("min", -1e30, 1e30, lo);
    hi = n->real("max", -1e30, 1e30, hi);
    if (hi < lo) n->fail_at(n->node()["max"], "max", "must be >= min (" + std::to_string(lo) + ")");
    n->finish();
}

std::string describe(const num::Distribution& d) {
    std::ostringstream o;
    o << (d.kind == num::Distribution::normal ? "normal(" : "uniform(") << d.mean << ", " << d.spread << ")";
    return o.str();
}

}  // namespace bnsim
