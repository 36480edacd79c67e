#include "sim/config/canonical_json.h"

#include <nlohmann/json.hpp>

#include "configfile/config_error.h"

namespace bnsim {
namespace {

// Far beyond any real config; a YAML alias bomb expands past them and is refused.
constexpr int kMaxDepth = 64;
constexpr long kMaxNodes = 1'000'000;

// nlohmann::json (not ordered_json) keeps object keys sorted: that is the canonical order.
nlohmann::json to_json(const YAML::Node& n, int depth, long& nodes) {
    if (depth > kMaxDepth || ++nodes > kMaxNodes)
        throw ConfigError("config tree is deeper or larger than any config (YAML aliases expanded too far)");
    switch (n.Type()) {
        case YAML::NodeType::Scalar:
            return n.Scalar();
        case YAML::NodeType::Sequence: {
            nlohmann::json a = nlohmann::json::array();
            for (const auto& e : n) a.push_back(to_json(e, depth + 1, nodes));
            return a;
        }
        case YAML::NodeType::Map: {
            nlohmann::json o = nlohmann::json::object();
            for (const auto& kv : n) {
                const YAML::Node& k = kv.first;
                const std::string key = k.IsScalar() ? k.Scalar() : to_json(k, depth + 1, nodes).dump();
                o[key] = to_json(kv.second, depth + 1, nodes);
            }
            return o;
        }
        default:  // Null, Undefined
            return nullptr;
    }
}

}  // namespace

nlohmann::json canonical_tree(const YAML::Node& node) {
    long nodes = 0;
    return to_json(node, 0, nodes);
}

std::string canonical_text(const nlohmann::json& tree) {
    // Invalid UTF-8 in a scalar is replaced, not thrown: the hash still tells configs apart.
    return tree.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string canonical_json(const YAML::Node& node) { return canonical_text(canonical_tree(node)); }

}  // namespace bnsim
