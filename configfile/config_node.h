#pragma once
// Strict, located access to a YAML mapping: every read names its key, every error names the
// file, line and dotted key, and finish() rejects keys nobody read (a typo is an error, not a
// silently ignored setting).
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "configfile/config_error.h"

namespace bnsim {

// Where a config tree came from: the file, and which dotted keys an override replaced.
struct ConfigSource {
    std::string file;
    std::set<std::string> overridden;
    // What set an overridden key, for messages: "--axis", "column", a sweep file's "grid key
    // at s.yaml:4"; a key not listed was set by "--set".
    std::map<std::string, std::string> override_origin;
    std::string origin_of(const std::string& key) const {
        auto it = override_origin.find(key);
        return it == override_origin.end() ? "--set" : it->second;
    }
};

class ConfigNode {
public:
    ConfigNode(YAML::Node node, std::string path, std::shared_ptr<const ConfigSource> src);

    bool has(const std::string& key) const;
    ConfigNode child(const std::string& key);           // required mapping
    std::optional<ConfigNode> optional_child(const std::string& key);
    YAML::Node raw(const std::string& key);              // marks the key as read

    int64_t integer(const std::string& key, int64_t lo, int64_t hi);
    int64_t integer(const std::string& key, int64_t lo, int64_t hi, int64_t dflt);
    double real(const std::string& key, double lo, double hi);
    double real(const std::string& key, double lo, double hi, double dflt);
    bool boolean(const std::string& key);
    bool boolean(const std::string& key, bool dflt);
    std::string text(const std::string& key);
    std::string text(const std::string& key, const std::string& dflt);
    std::string choice(const std::string& key, const std::vector<std::string>& allowed);
    std::string choice(const std::string& key, const std::vector<std::string>& allowed, const std::string& dflt);

    void finish() const;  // error on keys never read
    [[noreturn]] void fail(const std::string& key, const std::string& expected) const;
    [[noreturn]] void fail_at(const YAML::Node& n, const std::string& key, const std::string& message) const;

    const std::string& path() const { return path_; }
    std::string key_path(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }
    const YAML::Node& node() const { return node_; }
    std::shared_ptr<const ConfigSource> source() const { return src_; }

private:
    YAML::Node node_;
    std::string path_;
    std::shared_ptr<const ConfigSource> src_;
    std::shared_ptr<std::set<std::string>> read_;
    std::string where(const YAML::Node& n, const std::string& key) const;
    YAML::Node get(const std::string& key) const;
    YAML::Node lookup(const std::string& key) const;  // never an invalid node
    static std::string show(const YAML::Node& n);
};

// Applies "a.b.c=value" (value parsed as YAML) to a tree, creating maps as needed.
void apply_override(YAML::Node root, const std::string& dotted_key, const std::string& value,
                    const std::string& origin);

}  // namespace bnsim
