#pragma once
// Keys of the `numerics:` section that several kernels read the same way: a random
// distribution ({distribution: normal|uniform, mean, spread}) and a [min, max] range.
#include <string>

#include "configfile/config_node.h"
#include "numerics/random.h"

namespace bnsim {

// `key: {distribution, mean, spread}` under parent; absent: d unchanged.
num::Distribution parse_distribution(ConfigNode& parent, const std::string& key, num::Distribution d);
// `key: {min, max}` under parent; absent: lo/hi unchanged.
void parse_range(ConfigNode& parent, const std::string& key, double& lo, double& hi);
// Describes a distribution as "normal(mean, spread)" or "uniform(mean, spread)".
std::string describe(const num::Distribution& d);

}  // namespace bnsim
