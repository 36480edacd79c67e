#pragma once
// A YAML tree as canonical JSON text: mapping keys sorted, scalars as their YAML text, no
// whitespace, aliases expanded. Two trees that mean the same to the config reader give the same
// text, whatever their key order, flow/block style or comments; it is what provenance hashes.
#include <string>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

namespace bnsim {

// Throws ConfigError if the tree is deeper or larger than any config could be (alias bombs).
std::string canonical_json(const YAML::Node& node);
// The same as a JSON tree (nlohmann::json keeps keys sorted), and the text of such a tree.
nlohmann::json canonical_tree(const YAML::Node& node);
std::string canonical_text(const nlohmann::json& tree);

}  // namespace bnsim
