#include "sim/sweep/sweep_spec.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <unordered_set>

#include <yaml-cpp/yaml.h>

#include "configfile/config_error.h"
#include "configfile/yaml_file.h"

namespace bnsim {

namespace {

constexpr size_t kMaxAxisValues = 100000;

struct Reader {
    std::string file;
    std::string at(const YAML::Node& n) const {
        std::string where = file;
        if (n.IsDefined() && n.Mark().line >= 0)
            where += ":" + std::to_string(n.Mark().line + 1) + ":" + std::to_string(n.Mark().column + 1);
        return where;
    }
    [[noreturn]] void fail(const YAML::Node& n, const std::string& key, const std::string& msg) const {
        throw ConfigError(at(n) + ": " + excerpt(key, 80) + ": " + msg);
    }
};

// A YAML value as --set text: scalars as written, collections in flow style.
std::string yaml_text(const YAML::Node& n) {
    if (n.IsScalar()) return n.Scalar();
    YAML::Emitter e;
    e << YAML::Flow << n;
    return e.c_str();
}

bool as_number(const YAML::Node& n, double& v, bool& integral) {
    if (!n.IsScalar()) return false;
    const std::string& s = n.Scalar();
    try {
        size_t used = 0;
        v = std::stod(s, &used);
        if (used != s.size() || !std::isfinite(v)) return false;
    } catch (...) {
        return false;
    }
    integral = s.find_first_of(".eE") == std::string::npos;
    return true;
}

std::string number_text(double v, bool integral) {
    if (integral) return std::to_string(int64_t(std::llround(v)));
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.12g", v);
    return buf;
}

std::vector<std::string> axis_values(const Reader& r, const std::string& key, const YAML::Node& n) {
    std::vector<std::string> out;
    if (n.IsSequence()) {
        if (n.size() == 0) r.fail(n, key, "expected at least one value");
        for (const auto& v : n) out.push_back(yaml_text(v));
    } else if (n.IsMap()) {
        std::set<std::string> allowed{"from", "to", "step", "times"};
        for (const auto& kv : n)
            if (!allowed.count(kv.first.as<std::string>()))
                r.fail(kv.first, key, "unknown range key '" + kv.first.as<std::string>() +
                                          "' (expected from, to and step or times)");
        double from = 0, to = 0, step = 1, times = 0;
        bool ifrom = true, ito = true, istep = true, itimes = true;
        if (!n["from"] || !as_number(n["from"], from, ifrom)) r.fail(n, key, "a range needs a number 'from'");
        if (!n["to"] || !as_number(n["to"], to, ito)) r.fail(n, key, "a range needs a number 'to'");
        if (n["step"] && n["times"]) r.fail(n, key, "a range takes 'step' or 'times', not both");
        if (n["step"] && (!as_number(n["step"], step, istep) || step <= 0))
            r.fail(n["step"], key, "'step' must be a number > 0");
        if (n["times"] && (!as_number(n["times"], times, itimes) || times <= 1))
            r.fail(n["times"], key, "'times' must be a number > 1");
        if (to < from) r.fail(n, key, "a range needs 'from' <= 'to'");
        if (n["times"] && from <= 0) r.fail(n["from"], key, "a 'times' range needs 'from' > 0");
        const bool integral = ifrom && ito && istep && itimes;
        for (int64_t i = 0;; ++i) {
            const double v = n["times"] ? from * std::pow(times, double(i)) : from + step * double(i);
            if (v > to * (1 + 1e-12)) break;
            if (out.size() >= kMaxAxisValues) r.fail(n, key, "more than 100000 values");
            out.push_back(number_text(v, integral));
        }
    } else if (n.IsScalar()) {
        out.push_back(n.Scalar());
    } else {
        r.fail(n, key, "expected a list of values or a range {from, to, step | times}");
    }
    return out;
}

void check_key(const Reader& r, const YAML::Node& n, const std::string& key) {
    if (key.empty() || key.front() == '.' || key.back() == '.' || key.find("..") != std::string::npos)
        r.fail(n, key.empty() ? "(empty key)" : key, "expected a dotted key such as shape.C or hardware.hbm.bandwidth_gbps");
}

// Every combination of the axes, first axis outermost.
void product(const std::vector<std::pair<std::string, std::vector<std::string>>>& axes,
             const std::function<void(const PointParams&)>& visit) {
    PointParams cur;
    std::function<void(size_t)> rec = [&](size_t i) {
        if (i == axes.size()) return visit(cur);
        for (const auto& v : axes[i].second) {
            cur.emplace_back(axes[i].first, v);
            rec(i + 1);
            cur.pop_back();
        }
    };
    rec(0);
}

}  // namespace

SweepSpec load_sweep_spec(const std::string& path) {
    SweepSpec s;
    s.file = path;
    Reader r{path};
    // Regular files only, size-limited, every key a plain scalar and given once.
    const YAML::Node root = load_yaml_file(path, "a sweep file (YAML)");
    if (!root.IsMap()) throw ConfigError(path + ": expected a mapping with base, grid and/or points");
    for (const auto& kv : root) {
        const std::string k = kv.first.as<std::string>();
        if (k != "base" && k != "grid" && k != "points" && k != "timeout")
            r.fail(kv.first, k, "unknown key (expected base, grid, points, timeout)");
    }
    if (!root["base"] || !root["base"].IsScalar() || root["base"].Scalar().empty())
        r.fail(root["base"] ? root["base"] : root, "base", "expected the path of the base run config");
    s.base = root["base"].Scalar();
    if (const YAML::Node t = root["timeout"]) {
        double v = 0;
        bool integral = false;
        if (!as_number(t, v, integral) || v <= 0 || v > 86400)
            r.fail(t, "timeout", "expected seconds per point in (0, 86400]");
        s.timeout_s = v;
    }
    if (const YAML::Node g = root["grid"]) {
        if (!g.IsMap()) r.fail(g, "grid", "expected a mapping of dotted keys to value lists or ranges");
        for (const auto& kv : g) {
            const std::string key = kv.first.as<std::string>();
            check_key(r, kv.first, key);
            s.grid.emplace_back(key, axis_values(r, "grid." + key, kv.second));
            s.key_origin.emplace(key, r.at(kv.first) + ": grid key");
        }
    }
    if (const YAML::Node ps = root["points"]) {
        if (!ps.IsSequence()) r.fail(ps, "points", "expected a list of mappings {dotted.key: value, ...}");
        for (size_t i = 0; i < ps.size(); ++i) {
            const YAML::Node p = ps[i];
            const std::string where = "points[" + std::to_string(i) + "]";
            if (!p.IsMap() || p.size() == 0) r.fail(p, where, "expected a mapping {dotted.key: value, ...}");
            PointParams params;
            for (const auto& kv : p) {
                const std::string key = kv.first.as<std::string>();
                check_key(r, kv.first, key);
                params.emplace_back(key, yaml_text(kv.second));
                s.key_origin.emplace(key, r.at(kv.first) + ": " + where + " key");
            }
            s.points.push_back(params);
            if (s.points.size() > kMaxSweepPoints)
                r.fail(p, "points", "more than " + std::to_string(kMaxSweepPoints) + " explicit points");
        }
    }
    return s;
}

std::string point_id(const PointParams& params) {
    PointParams sorted = params;
    std::sort(sorted.begin(), sorted.end());
    uint64_t h = 1469598103934665603ull;
    for (const auto& [k, v] : sorted)
        for (const std::string& part : {k, std::string("="), v, std::string("\n")})
            for (unsigned char c : part) {
                h ^= c;
                h *= 1099511628211ull;
            }
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    return buf;
}

PointParams context_of(const PointParams& params, const SweepKernel& kernel) {
    PointParams c;
    for (const auto& kv : params)
        if (!kernel.is_decision_key(kv.first)) c.push_back(kv);
    return c;
}

std::string params_label(const PointParams& params) {
    if (params.empty()) return "base";
    std::string s;
    for (const auto& [k, v] : params) s += (s.empty() ? "" : " ") + k + "=" + v;
    return s;
}

SweepPlan expand_sweep(const SweepSpec& spec, const SweepKernel& kernel) {
    SweepPlan plan;
    const std::filesystem::path dir = std::filesystem::path(spec.file).parent_path();
    plan.base = (dir / spec.base).lexically_normal().string();

    // Columns: context keys in order of first appearance, then the decision keys.
    std::vector<std::string> ctx_cols, dec_cols;
    auto add_col = [&](const std::string& k) {
        auto& cols = kernel.is_decision_key(k) ? dec_cols : ctx_cols;
        if (std::find(cols.begin(), cols.end(), k) == cols.end()) cols.push_back(k);
    };
    for (const auto& [k, v] : spec.grid) add_col(k);
    for (const auto& p : spec.points)
        for (const auto& [k, v] : p) add_col(k);
    for (const auto& [k, v] : kernel.auto_overrides) add_col(k);
    // Auto overrides first among the decisions ("memory" before "memory.f_tile").
    std::stable_partition(dec_cols.begin(), dec_cols.end(), [&](const std::string& c) {
        for (const auto& [k, v] : kernel.auto_overrides)
            if (c == k) return true;
        return false;
    });
    plan.columns = ctx_cols;
    plan.columns.insert(plan.columns.end(), dec_cols.begin(), dec_cols.end());
    // Column positions looked up once (a plan may hold 20,000 points of a dozen keys each).
    std::map<std::string, size_t> column_at;
    for (size_t i = 0; i < plan.columns.size(); ++i) column_at.emplace(plan.columns[i], i);
    auto in_column_order = [&](PointParams p) {
        std::stable_sort(p.begin(), p.end(),
                         [&](const auto& a, const auto& b) { return column_at.at(a.first) < column_at.at(b.first); });
        return p;
    };

    std::unordered_set<std::string> seen;
    auto add_point = [&](const PointParams& p, bool is_auto) {
        SweepPoint pt;
        pt.params = in_column_order(p);
        pt.id = point_id(pt.params);
        pt.is_auto = is_auto;
        if (seen.insert(pt.id).second) plan.points.push_back(pt);
    };
    std::vector<std::pair<std::string, std::vector<std::string>>> ctx_axes, dec_axes;
    for (const auto& a : spec.grid) (kernel.is_decision_key(a.first) ? dec_axes : ctx_axes).push_back(a);
    // Count before enumerating: each axis is capped, their product is not (three 1,000-value
    // axes are a billion points). Counted in double, which cannot overflow here.
    double contexts = 1, decisions = 1;
    for (const auto& a : ctx_axes) contexts *= double(a.second.size());
    for (const auto& a : dec_axes) decisions *= double(a.second.size());
    const double planned = contexts * (decisions + 1) + 2 * double(spec.points.size());
    if (planned > double(kMaxSweepPoints)) {
        char count[32];
        std::snprintf(count, sizeof count, "%.4g", planned);
        throw ConfigError(spec.file + ": the grid is " + count + " points (with the kernel's own choice per context); "
                          "expected at most " + std::to_string(kMaxSweepPoints) +
                          ": narrow an axis or split the sweep into several files");
    }
    // One context: its auto point, then the decision grid.
    auto add_context = [&](const PointParams& ctx, const PointParams& given_decisions) {
        PointParams a = ctx;
        a.insert(a.end(), kernel.auto_overrides.begin(), kernel.auto_overrides.end());
        add_point(a, !kernel.auto_overrides.empty());
        if (!given_decisions.empty()) {
            PointParams p = ctx;
            p.insert(p.end(), given_decisions.begin(), given_decisions.end());
            add_point(p, false);
            return;
        }
        product(dec_axes, [&](const PointParams& d) {
            PointParams p = ctx;
            p.insert(p.end(), d.begin(), d.end());
            add_point(p, false);
        });
    };
    product(ctx_axes, [&](const PointParams& ctx) { add_context(ctx, {}); });
    // An explicit point that fixes no decision gets the grid's decisions; one that fixes some
    // runs as given.
    for (const auto& p : spec.points) {
        PointParams ctx, dec;
        for (const auto& kv : p) (kernel.is_decision_key(kv.first) ? dec : ctx).push_back(kv);
        add_context(ctx, dec);
    }
    return plan;
}

}  // namespace bnsim
