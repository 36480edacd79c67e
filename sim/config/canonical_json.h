#pragma once
// A YAML tree as canonical JSON text: mapping keys sorted, scalars as their YAML text, no
// whitespace, aliases expanded. Two trees that mean the same to the config reader give the same
// text, whatever their key order, flow/block style or comments; it is what provenance hashes.
#include <string>

#include <yaml-cpp/yaml.h>

namespace bnsim {

// Throws ConfigError if the tree is deeper or larger than any config could be (alias bombs).
std::string canonical_json(const YAML::Node& node);

}  // namespace bnsim
