#include "configfile/config_node.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>

#include "configfile/closest_names.h"
#include "configfile/input_file.h"
#include "configfile/yaml_file.h"

namespace bnsim {

ConfigNode::ConfigNode(YAML::Node node, std::string path, std::shared_ptr<const ConfigSource> src)
    : node_(std::move(node)), path_(std::move(path)), src_(std::move(src)),
      read_(std::make_shared<std::set<std::string>>()) {
    if (!node_.IsMap()) {
        std::ostringstream m;
        m << (path_.empty() ? "top level" : "'" + path_ + "'") << ": expected a mapping of keys, got "
          << show(node_);
        throw ConfigError(where(node_, path_) + m.str());
    }
}

std::string ConfigNode::where(const YAML::Node& n, const std::string& key) const {
    std::ostringstream w;
    // A key set by --set, or inside a mapping set by --set, has no line in the file.
    for (std::string k = key;; k = k.substr(0, k.rfind('.'))) {
        if (src_->overridden.count(k)) return src_->origin_of(k) + " " + excerpt(k, 80) + ": ";
        if (k.find('.') == std::string::npos) break;
    }
    // A mapping that only an override created (--set nosuch.key=1 makes `nosuch`) has no line
    // in the file either: blame the override below it.
    const auto below = src_->overridden.lower_bound(key + ".");
    if (below != src_->overridden.end() && below->compare(0, key.size() + 1, key + ".") == 0)
        return src_->origin_of(*below) + " " + excerpt(*below, 80) + ": ";
    w << src_->file;
    if (n.IsDefined() && !n.Mark().is_null()) w << ":" << n.Mark().line + 1 << ":" << n.Mark().column + 1;
    else if (!node_.Mark().is_null()) w << ":" << node_.Mark().line + 1;
    w << ": ";
    return w.str();
}

std::string ConfigNode::show(const YAML::Node& n) {
    if (!n.IsDefined() || n.IsNull()) return "nothing";
    if (n.IsScalar()) return "'" + n.Scalar() + "'";
    if (n.IsSequence()) return "a list";
    return "a mapping";
}

void ConfigNode::fail(const std::string& key, const std::string& expected) const {
    YAML::Node n = lookup(key);
    fail_at(n, key, "expected " + expected + ", got " + show(n));
}

void ConfigNode::fail_at(const YAML::Node& n, const std::string& key, const std::string& message) const {
    const std::string kp = key_path(key);
    throw ConfigError(where(n, kp) + "key '" + excerpt(kp, 80) + "': " + message);
}

bool ConfigNode::has(const std::string& key) const {
    YAML::Node n = lookup(key);
    return n.IsDefined() && !n.IsNull();
}

YAML::Node ConfigNode::lookup(const std::string& key) const {
    // yaml-cpp's const operator[] returns an *invalid* node for a missing key, on which
    // IsSequence(), Type() or Mark() throw; hand out a valid, undefined node instead.
    YAML::Node n = node_[key];
    return n ? n : YAML::Node(YAML::NodeType::Undefined);
}

YAML::Node ConfigNode::get(const std::string& key) const {
    read_->insert(key);
    return lookup(key);
}

YAML::Node ConfigNode::raw(const std::string& key) { return get(key); }

ConfigNode ConfigNode::child(const std::string& key) {
    YAML::Node n = get(key);
    if (!n.IsDefined()) fail_at(n, key, "missing (a mapping is required)");
    if (!n.IsMap()) fail(key, "a mapping");
    return ConfigNode(n, key_path(key), src_);
}

std::optional<ConfigNode> ConfigNode::optional_child(const std::string& key) {
    if (!has(key)) {
        read_->insert(key);
        return std::nullopt;
    }
    return child(key);
}

int64_t ConfigNode::integer(const std::string& key, int64_t lo, int64_t hi) {
    YAML::Node n = get(key);
    if (!n.IsDefined() || n.IsNull()) fail_at(n, key, "missing (an integer is required)");
    std::string range = "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
    if (!n.IsScalar()) fail(key, range);
    int64_t v = 0;
    if (!YAML::convert<int64_t>::decode(n, v)) fail(key, range);
    if (v < lo || v > hi) fail(key, range);
    return v;
}

int64_t ConfigNode::integer(const std::string& key, int64_t lo, int64_t hi, int64_t dflt) {
    if (!has(key)) return (read_->insert(key), dflt);
    return integer(key, lo, hi);
}

static std::string fmt_range(double lo, double hi) {
    std::ostringstream s;
    s << "a number in [" << lo << ", " << hi << "]";
    return s.str();
}

double ConfigNode::real(const std::string& key, double lo, double hi) {
    YAML::Node n = get(key);
    if (!n.IsDefined() || n.IsNull()) fail_at(n, key, "missing (a number is required)");
    if (!n.IsScalar()) fail(key, fmt_range(lo, hi));
    double v = 0;
    if (!YAML::convert<double>::decode(n, v) || !std::isfinite(v)) fail(key, fmt_range(lo, hi));
    if (v < lo || v > hi) fail(key, fmt_range(lo, hi));
    return v;
}

double ConfigNode::real(const std::string& key, double lo, double hi, double dflt) {
    if (!has(key)) return (read_->insert(key), dflt);
    return real(key, lo, hi);
}

bool ConfigNode::boolean(const std::string& key) {
    YAML::Node n = get(key);
    if (!n.IsDefined() || n.IsNull()) fail_at(n, key, "missing (true or false is required)");
    bool v = false;
    if (!n.IsScalar() || !YAML::convert<bool>::decode(n, v)) fail(key, "true or false");
    return v;
}

bool ConfigNode::boolean(const std::string& key, bool dflt) {
    if (!has(key)) return (read_->insert(key), dflt);
    return boolean(key);
}

std::string ConfigNode::text(const std::string& key) {
    YAML::Node n = get(key);
    if (!n.IsDefined() || n.IsNull()) fail_at(n, key, "missing (a string is required)");
    if (!n.IsScalar()) fail(key, "a string");
    return n.Scalar();
}

std::string ConfigNode::text(const std::string& key, const std::string& dflt) {
    if (!has(key)) return (read_->insert(key), dflt);
    return text(key);
}

std::string ConfigNode::choice(const std::string& key, const std::vector<std::string>& allowed) {
    std::string v = text(key);
    for (const auto& a : allowed)
        if (a == v) return v;
    std::string list;
    for (size_t i = 0; i < allowed.size(); ++i) list += (i ? " | " : "") + allowed[i];
    fail(key, "one of " + list);
}

std::string ConfigNode::choice(const std::string& key, const std::vector<std::string>& allowed,
                               const std::string& dflt) {
    if (!has(key)) return (read_->insert(key), dflt);
    return choice(key, allowed);
}

void ConfigNode::finish() const {
    for (auto it = node_.begin(); it != node_.end(); ++it) {
        const std::string k = it->first.as<std::string>();
        if (read_->count(k)) continue;
        // The keys this mapping takes are the ones its reader asked for: suggest the nearest
        // (shape.c -> shape.C), when one is near enough to be a slip.
        std::vector<std::string> known(read_->begin(), read_->end());
        auto lower = [](std::string x) {
            for (char& c : x) c = char(std::tolower(static_cast<unsigned char>(c)));
            return x;
        };
        std::vector<std::string> near;
        for (const auto& n : known)
            if (lower(n) == lower(k)) near.push_back(n);  // only the case differs: that one
        if (near.empty()) near = closest_names(k, known, 2);
        std::string hint;
        for (const auto& n : near)
            if (edit_distance(k, n) <= std::max<size_t>(2, k.size() / 3))
                hint += (hint.empty() ? "; did you mean '" : "' or '") + key_path(n);
        if (!hint.empty()) hint += "'?";
        fail_at(it->first, k, "unknown key" + hint);
    }
}

void apply_override(YAML::Node root, const std::string& dotted, const std::string& value, const std::string& origin) {
    std::vector<std::string> parts;
    for (size_t b = 0;;) {  // every segment, including empty ones (getline drops a trailing one)
        const size_t e = dotted.find('.', b);
        parts.push_back(dotted.substr(b, e == std::string::npos ? std::string::npos : e - b));
        if (parts.back().empty())
            throw ConfigError(origin + ": empty segment in the key '" + dotted + "'; expected a dotted key such as shape.C");
        if (e == std::string::npos) break;
        b = e + 1;
    }
    YAML::Node parsed;
    try {
        parsed = YAML::Load(value);
    } catch (const YAML::Exception& e) {
        throw ConfigError(origin + ": value '" + value + "' is not valid YAML: " + e.msg);
    }
    reject_duplicate_keys(parsed, origin, false);
    // yaml-cpp nodes are handles: walk by reassigning a handle to each child.
    std::vector<YAML::Node> chain{root};
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
        YAML::Node next = chain.back()[parts[i]];
        // `auto` leaves every choice of a section open, so fixing one key below it starts from
        // an empty mapping (`memory: auto` plus --set memory.interleave=4 -> {interleave: 4}).
        if (next.IsScalar() && next.Scalar() == "auto") next = YAML::Node(YAML::NodeType::Null);
        if (next.IsDefined() && !next.IsMap() && !next.IsNull())
            throw ConfigError(origin + ": '" + parts[i] + "' is not a mapping, cannot set '" + dotted + "'");
        if (!next.IsDefined() || next.IsNull()) {
            chain.back()[parts[i]] = YAML::Node(YAML::NodeType::Map);
            next = chain.back()[parts[i]];
        }
        chain.push_back(next);
    }
    chain.back()[parts.back()] = parsed;
}

}  // namespace bnsim
