#include "sim/config/hw_config_loader.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "configfile/input_file.h"
#include "models/hw_params.h"
#include "configfile/closest_names.h"

namespace bnsim {

namespace fs = std::filesystem;

namespace {

// Whether `key_path` ("hardware.dma.issue_ns"), or a mapping around it, was set by --set.
bool overridden(const ConfigSource& src, std::string key_path) {
    for (;;) {
        if (src.overridden.count(key_path)) return true;
        const auto dot = key_path.rfind('.');
        if (dot == std::string::npos) return false;
        key_path.resize(dot);
    }
}

// The node at a dotted key of a tree, or an undefined node. Never modifies the tree (assigning
// one yaml-cpp handle to another would).
YAML::Node find_node(const YAML::Node& n, const std::string& dotted) {
    if (!n.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
    const auto dot = dotted.find('.');
    const YAML::Node child = n[dotted.substr(0, dot)];
    if (!child) return YAML::Node(YAML::NodeType::Undefined);
    return dot == std::string::npos ? child : find_node(child, dotted.substr(dot + 1));
}

// The value of a parameter at `key` of `n`, checked against its kind and allowed range.
double read_value(ConfigNode& n, const std::string& key, const HwParam& p) {
    switch (p.kind) {
    case ParamKind::real: return n.real(key, p.min, p.max);
    case ParamKind::integer: return double(n.integer(key, int64_t(p.min), int64_t(p.max)));
    case ParamKind::boolean: {
        const YAML::Node v = n.node()[key];
        if (v && v.IsScalar() && (v.Scalar() == "0" || v.Scalar() == "1")) {
            n.raw(key);
            return v.Scalar() == "1" ? 1 : 0;
        }
        return n.boolean(key) ? 1 : 0;
    }
    }
    return 0;
}

// One end of an estimate's uncertainty range: {value, why}.
double read_range_end(ConfigNode& u, const std::string& end, const HwParam& p, std::string& why) {
    ConfigNode e = u.child(end);
    const double v = read_value(e, "value", p);
    why = e.text("why");
    if (why.empty()) e.fail("why", "the reason for this end of the range");
    e.finish();
    return v;
}

// An estimate's `uncertainty: {low: {value, why}, high: {value, why}}` under `owner`, each end
// read as p's kind and range.
UncertaintyRange read_uncertainty(ConfigNode& owner, const HwParam& p) {
    ConfigNode u = owner.child("uncertainty");
    UncertaintyRange r;
    r.lo = read_range_end(u, "low", p, r.lo_reason);
    r.hi = read_range_end(u, "high", p, r.hi_reason);
    u.finish();
    if (r.lo > r.hi) u.fail_at(u.node(), "low", "the low end exceeds the high end");
    return r;
}

// A parameter given as {value, source} or {value, estimate: true, note, uncertainty}.
double read_sourced(ConfigNode& group, const std::string& leaf, const HwParam& p, ParamProvenance& prov) {
    ConfigNode c = group.child(leaf);
    const double v = read_value(c, "value", p);
    prov.estimate = c.boolean("estimate", false);
    prov.source = c.text("source", "");
    prov.note = c.text("note", "");
    if (prov.source.empty() && !prov.estimate)
        c.fail_at(c.node(), "source", "missing: a hardware number needs a source or 'estimate: true'");
    if (prov.estimate) {
        if (!c.has("uncertainty"))
            c.fail_at(c.node(), "uncertainty",
                      "missing: an estimate needs the range its evidence spans, "
                      "uncertainty: {low: {value, why}, high: {value, why}}");
        const UncertaintyRange r = read_uncertainty(c, p);
        // A --set may move the value anywhere allowed (a sweep, a fit); the preset's own value
        // lies within its stated range.
        if (!prov.overridden && (v < r.lo || v > r.hi))
            c.fail_at(c.node()["value"], "value", "outside its own uncertainty range");
        prov.uncertainty = r;
    } else if (c.has("uncertainty")) {
        c.fail_at(c.node()["uncertainty"], "uncertainty", "only an estimate carries an uncertainty range");
    }
    c.finish();
    return v;
}

// The mappings of the hardware tree by dotted path ("", "dma", "engines.act"), each read once so
// that finish() sees every key read through it.
class Groups {
public:
    explicit Groups(ConfigNode& root) : root_(root) {}
    ConfigNode& at(const std::string& path) {
        if (path.empty()) return root_;
        auto it = nodes_.find(path);
        if (it != nodes_.end()) return it->second;
        const auto dot = path.rfind('.');
        ConfigNode& parent = at(dot == std::string::npos ? "" : path.substr(0, dot));
        return nodes_.emplace(path, parent.child(path.substr(dot == std::string::npos ? 0 : dot + 1))).first->second;
    }
    void finish() const {
        for (const auto& [path, n] : nodes_) n.finish();
    }

private:
    ConfigNode& root_;
    std::map<std::string, ConfigNode> nodes_;
};

// A cost-key dimension given as one name or a list of them, e.g. alu: [subtract, mult].
template <class T>
std::vector<T> names_list(ConfigNode& row, const std::string& key, const std::vector<std::string>& allowed,
                          T (*from)(const std::string&)) {
    const YAML::Node n = row.raw(key);
    std::vector<YAML::Node> items;
    if (n.IsScalar()) items.push_back(n);
    else if (n.IsSequence() && n.size() > 0)
        for (const auto& i : n) items.push_back(i);
    std::string list;
    for (size_t i = 0; i < allowed.size(); ++i) list += (i ? " | " : "") + allowed[i];
    if (items.empty()) row.fail(key, "one of " + list + ", or a list of them");
    std::vector<T> out;
    for (const auto& i : items) {
        if (!i.IsScalar() || std::find(allowed.begin(), allowed.end(), i.Scalar()) == allowed.end())
            row.fail_at(i, key, "expected one of " + list + ", got '" + (i.IsScalar() ? i.Scalar() : "a list") + "'");
        out.push_back(from(i.Scalar()));
    }
    return out;
}

AluOp alu_from(const std::string& s) {
    for (int i = 0; i < kNumAluOps; ++i)
        if (s == alu_name(AluOp(i))) return AluOp(i);
    return AluOp::bypass;
}
DType dtype_from(const std::string& s) { return *dtype_from_name(s); }

// The optional key dimensions of a cost row (see CostEntry).
void parse_cost_key(ConfigNode& row, CostEntry& e) {
    std::vector<std::string> alus, dtypes = {"bfloat16", "float32", "uint8", "float16", "int32"};
    for (int i = 1; i < kNumAluOps; ++i) alus.push_back(alu_name(AluOp(i)));
    if (row.has("alu")) e.alu = names_list<AluOp>(row, "alu", alus, alu_from);
    else row.raw("alu");
    if (row.has("in")) e.in = names_list<DType>(row, "in", dtypes, dtype_from);
    else row.raw("in");
    if (row.has("out")) e.out = dtype_from(row.choice("out", dtypes));
    else row.raw("out");
    for (const char* key : {"src_mem", "dst_mem"}) {
        std::optional<Space>& field = std::string(key) == "src_mem" ? e.src_mem : e.dst_mem;
        if (row.has(key)) field = row.choice(key, {"sbuf", "psum"}) == "sbuf" ? Space::Sbuf : Space::Psum;
        else row.raw(key);
    }
    if (row.has("broadcasts")) e.broadcasts = int(row.integer("broadcasts", 0, 2));
    else row.raw("broadcasts");
    if (row.has("accumulate")) e.accumulate = row.boolean("accumulate");
    else row.raw("accumulate");
    if (row.has("readout")) e.readout = row.boolean("readout");
    else row.raw("readout");
}

// A cost row's provenance: a source, or estimate: true with the range of its cycles_per_elem.
// A --set of the row's cycles_per_elem (a sweep, a sensitivity end) may leave that range.
void parse_cost_provenance(ConfigNode& row, CostEntry& e, bool per_elem_overridden) {
    e.source = row.text("source", "");
    e.estimate = row.boolean("estimate", false);
    e.note = row.text("note", "");
    if (e.source.empty() && !e.estimate)
        row.fail_at(row.node(), "source", "missing: a cost row needs a source or 'estimate: true'");
    if (!e.estimate) {
        if (row.has("uncertainty"))
            row.fail_at(row.node()["uncertainty"], "uncertainty", "only an estimate carries an uncertainty range");
        row.raw("uncertainty");
        return;
    }
    if (!row.has("uncertainty"))
        row.fail_at(row.node(), "uncertainty",
                    "missing: an estimated cost row needs the range of its cycles_per_elem, "
                    "uncertainty: {low: {value, why}, high: {value, why}}");
    static const HwParam per_elem("cycles_per_elem", "cycles", ParamKind::real, 0, 1e4, nullptr, nullptr);
    const UncertaintyRange r = read_uncertainty(row, per_elem);
    if (!per_elem_overridden && (e.cycles_per_elem < r.lo || e.cycles_per_elem > r.hi))
        row.fail_at(row.node()["cycles_per_elem"], "cycles_per_elem", "outside its own uncertainty range");
    e.uncertainty = r;
}

std::vector<CostEntry> parse_costs(ConfigNode& hw) {
    YAML::Node list = hw.raw("costs");
    if (!list.IsSequence() || list.size() == 0) hw.fail("costs", "a non-empty list of cost rows");
    std::vector<std::string> engines, opcodes;
    for (Engine e : kAllEngines) engines.push_back(engine_name(e));
    for (int i = 0; i < kNumOpcodes; ++i) opcodes.push_back(opcode_name(Opcode(i)));
    std::vector<CostEntry> costs;
    for (size_t i = 0; i < list.size(); ++i) {
        // Rows inherit the tree's source so errors point at the row's line.
        ConfigNode row(list[i], hw.key_path("costs[" + std::to_string(i) + "]"), hw.source());
        CostEntry e;
        e.id = row.text("id", "");
        for (const auto& other : costs)
            if (!e.id.empty() && other.id == e.id) row.fail_at(row.node()["id"], "id", "duplicate cost row id '" + e.id + "'");
        e.engine = *engine_from_name(row.choice("engine", engines));
        e.opcode = *opcode_from_name(row.choice("opcode", opcodes));
        e.dtype = row.choice("dtype", {"bfloat16", "float32", "any"}, "any");
        parse_cost_key(row, e);
        e.perf_mode = row.text("perf_mode", "1x");
        e.fixed_cycles = row.real("fixed_cycles", 0, 1e7);
        e.cycles_per_elem = row.real("cycles_per_elem", 0, 1e4);
        e.min_cycles = row.real("min_cycles", 0, 1e7);
        e.cycles_per_broadcast = row.real("cycles_per_broadcast", 0, 1e7, 0);
        parse_cost_provenance(row, e,
                              !e.id.empty() && overridden(*hw.source(), "hardware.costs." + e.id + ".cycles_per_elem"));
        row.finish();
        costs.push_back(e);
    }
    return costs;
}

}  // namespace

namespace {

HwConfig parse_hw_config(ConfigNode& hw, const std::vector<CostEntry>* known_costs) {
    HwConfig c;
    c.name = hw.text("name");
    Groups groups(hw);
    for (const HwParam& p : hw_params()) {
        const auto dot = p.name.rfind('.');
        ConfigNode& group = groups.at(p.name.substr(0, dot));
        const std::string leaf = p.name.substr(dot + 1);
        ParamProvenance prov;
        prov.overridden = overridden(*hw.source(), group.key_path(leaf));
        double v = 0;
        if (group.node()[leaf] && group.node()[leaf].IsMap()) {
            v = read_sourced(group, leaf, p, prov);
        } else if (prov.overridden || !group.has(leaf)) {
            v = read_value(group, leaf, p);  // a bare number from --set (or missing: the error)
        } else {
            group.fail_at(group.node()[leaf], leaf,
                          "a hardware number in a preset needs {value, source: ...} or "
                          "{value, estimate: true, note, uncertainty}");
        }
        p.set(c, v);
        c.provenance[p.name] = std::move(prov);
    }
    if (c.sbuf.usable_bytes_per_partition > c.sbuf.bytes_per_partition) {
        ConfigNode& sbuf = groups.at("sbuf");
        sbuf.fail_at(sbuf.node()["usable_bytes_per_partition"], "usable_bytes_per_partition",
                     "expected at most sbuf.bytes_per_partition (" + std::to_string(c.sbuf.bytes_per_partition) +
                         "), got " + std::to_string(c.sbuf.usable_bytes_per_partition));
    }
    if (known_costs) {
        hw.raw("costs");  // read: its rows were checked when they were parsed
        c.costs = *known_costs;
    } else {
        c.costs = parse_costs(hw);
    }
    groups.finish();
    hw.finish();
    return c;
}

}  // namespace

HwConfig parse_hw_config(ConfigNode& hw) { return parse_hw_config(hw, nullptr); }
HwConfig parse_hw_config(ConfigNode& hw, const std::vector<CostEntry>& costs) { return parse_hw_config(hw, &costs); }

namespace {

// --set hardware.costs.<id>.<field>=v: one number of the cost row named <id> (ids may hold dots).
void apply_cost_override(YAML::Node root, const std::string& key, const std::string& value, const std::string& origin) {
    static const std::vector<std::string> fields = {"fixed_cycles", "cycles_per_elem", "min_cycles",
                                                    "cycles_per_broadcast"};
    const std::string rest = key.substr(std::string("costs.").size());
    const auto dot = rest.rfind('.');
    const std::string id = dot == std::string::npos ? rest : rest.substr(0, dot);
    const std::string field = dot == std::string::npos ? "" : rest.substr(dot + 1);
    if (std::find(fields.begin(), fields.end(), field) == fields.end())
        throw ConfigError(origin + ": expected hardware.costs.<row id>.<fixed_cycles | cycles_per_elem | min_cycles | "
                                   "cycles_per_broadcast>");
    std::string ids;
    const YAML::Node costs = root.IsMap() ? root["costs"] : YAML::Node();
    if (costs && costs.IsSequence())
        for (YAML::Node row : costs) {
            if (!row.IsMap() || !row["id"] || !row["id"].IsScalar()) continue;
            if (row["id"].Scalar() == id) {
                double v = 0;
                try {
                    size_t used = 0;
                    v = std::stod(value, &used);
                    if (used != value.size()) throw std::invalid_argument(value);
                } catch (const std::exception&) {
                    throw ConfigError(origin + ": expected a number, got '" + value + "'");
                }
                row[field] = v;
                return;
            }
            ids += (ids.empty() ? "" : ", ") + row["id"].Scalar();
        }
    throw ConfigError(origin + ": no cost row with id '" + id + "' (ids: " + (ids.empty() ? "none" : ids) + ")");
}

}  // namespace

void apply_hw_overrides(YAML::Node root, const std::vector<std::pair<std::string, std::string>>& overrides,
                        ConfigSource& src) {
    const ParamTable& table = hw_params();
    for (const auto& [key, value] : overrides) {
        const std::string origin = src.origin_of("hardware." + key) + " hardware." + excerpt(key, 80) + "=" + excerpt(value);
        if (key.rfind("costs.", 0) == 0) {
            apply_cost_override(root, key, value, origin);
            src.overridden.insert("hardware." + key);
            continue;
        }
        const bool known = table.find(key) || table.is_group(key) || key == "name" || key == "costs";
        if (!known) {
            std::string hint;
            for (const auto& n : closest_names(key, table.names(), 3)) hint += (hint.empty() ? "" : ", ") + n;
            throw ConfigError(origin + ": unknown hardware parameter '" + key + "' (closest: " + hint +
                              "; bnsim params CONFIG lists them all)");
        }
        src.overridden.insert("hardware." + key);
        if (!root.IsMap()) continue;  // reported by the loader
        // A number set on {value, source/estimate, ...} replaces the value, not its provenance.
        const YAML::Node at = find_node(root, key);
        YAML::Node parsed;
        try {
            parsed = YAML::Load(value);
        } catch (const YAML::Exception&) {
        }
        if (table.find(key) && at && at.IsMap() && at["value"] && parsed.IsScalar())
            apply_override(root, key + ".value", value, origin);
        else
            apply_override(root, key, value, origin);
    }
}

bool set_param_overrides(HwConfig& hw, const std::vector<std::pair<std::string, std::string>>& overrides,
                         std::vector<std::string>& scalars) {
    const ParamTable& table = hw_params();
    HwConfig out = hw;
    scalars.clear();
    for (const auto& [key, value] : overrides) {
        const HwParam* p = table.find(key);
        if (!p) return false;
        // Read as parse_hw_config reads the {value, ...} mapping apply_hw_overrides leaves (every
        // parameter of a preset that parses is one).
        YAML::Node parsed;
        try {
            parsed = YAML::Load(value);
        } catch (const YAML::Exception&) {
            return false;
        }
        if (!parsed.IsScalar()) return false;
        YAML::Node holder(YAML::NodeType::Map);
        holder["value"] = parsed;
        ConfigNode n(holder, "hardware." + key, std::make_shared<ConfigSource>());
        try {
            p->set(out, read_value(n, "value", *p));
        } catch (const std::exception&) {
            return false;
        }
        out.provenance[p->name].overridden = true;
        scalars.push_back(parsed.Scalar());
    }
    if (out.sbuf.usable_bytes_per_partition > out.sbuf.bytes_per_partition) return false;
    hw = std::move(out);
    return true;
}

std::string resolve_hw_path(const std::string& name, const std::string& run_file) {
    if (name.find('/') != std::string::npos || (name.size() > 5 && name.substr(name.size() - 5) == ".yaml"))
        return name;
    std::vector<fs::path> candidates;
    // A run config in configs/ or configs/<sub>/ finds configs/hw/ above it.
    fs::path dir = fs::path(run_file).parent_path();
    for (int up = 0; up < 3; ++up) {
        candidates.push_back(dir / "hw" / (name + ".yaml"));
        candidates.push_back(dir / "configs" / "hw" / (name + ".yaml"));
        dir = dir.parent_path();
    }
#ifdef BNSIM_CONFIG_DIR
    candidates.push_back(fs::path(BNSIM_CONFIG_DIR) / "hw" / (name + ".yaml"));
#endif
    // A name too long for the file system is not found rather than an error here:
    // the caller's open of the fallback path reports it with the file named.
    for (const auto& p : candidates) {
        std::error_code ec;
        if (fs::exists(p, ec)) return p.string();
    }
    return (fs::path("configs") / "hw" / (name + ".yaml")).string();
}

}  // namespace bnsim
