#include "configfile/yaml_file.h"

#include <set>
#include <vector>

#include "configfile/config_error.h"
#include "configfile/input_file.h"

namespace bnsim {
namespace {

std::string at(const std::string& origin, bool is_file, const YAML::Mark& m) {
    if (!is_file || m.is_null()) return origin + ": ";
    return origin + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1) + ": ";
}

// Aliases can make a small file a tree of exponential size; walking is bounded.
constexpr size_t kMaxNodes = 1000000;

}  // namespace

void reject_duplicate_keys(const YAML::Node& root, const std::string& origin, bool is_file) {
    std::vector<YAML::Node> todo{root};
    size_t visited = 0;
    while (!todo.empty()) {
        const YAML::Node n = todo.back();
        todo.pop_back();
        if (++visited > kMaxNodes)
            throw ConfigError(origin + ": more than " + std::to_string(kMaxNodes) +
                              " YAML nodes (aliases expanding?); expected a config of ordinary size");
        if (n.IsSequence()) {
            for (const auto& c : n) todo.push_back(c);
        } else if (n.IsMap()) {
            std::set<std::string> seen;
            for (auto it = n.begin(); it != n.end(); ++it) {
                if (!it->first.IsScalar())
                    throw ConfigError(at(origin, is_file, it->first.Mark()) + "a key that is a " +
                                      (it->first.IsMap() ? "mapping" : "list") + "; expected a plain key");
                const std::string& k = it->first.Scalar();
                if (!seen.insert(k).second) {
                    // Name the first occurrence too.
                    std::string first;
                    for (auto jt = n.begin(); jt != it; ++jt)
                        if (jt->first.Scalar() == k && is_file && !jt->first.Mark().is_null())
                            first = " (first at line " + std::to_string(jt->first.Mark().line + 1) + ")";
                    throw ConfigError(at(origin, is_file, it->first.Mark()) + "key '" + k + "' appears twice in one mapping" +
                                      first + "; expected each key once");
                }
                todo.push_back(it->second);
            }
        }
    }
}

YAML::Node load_yaml_file(const std::string& path, const std::string& what) {
    return parse_yaml_text(read_yaml_text(path, what), path, what);
}

std::string read_yaml_text(const std::string& path, const std::string& what) {
    return read_input_file(path, what, kMaxYamlBytes);
}

YAML::Node parse_yaml_text(const std::string& text, const std::string& path, const std::string& what) {
    YAML::Node n;
    try {
        n = YAML::Load(text);
    } catch (const YAML::Exception& e) {
        throw ConfigError(path + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) +
                          ": YAML syntax error: " + e.msg);
    }
    if (!n.IsDefined() || n.IsNull()) throw ConfigError(path + ": empty file; expected " + what);
    reject_duplicate_keys(n, path, true);
    return n;
}

}  // namespace bnsim
