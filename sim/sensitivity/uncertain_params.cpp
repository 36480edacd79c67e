#include "sim/sensitivity/uncertain_params.h"

#include <sstream>

#include "configfile/config_error.h"
#include "configfile/input_file.h"
#include "configfile/number_text.h"
#include "models/hw_params.h"

namespace bnsim {

namespace {

const std::string kCostPrefix = "costs.";
const std::string kCostField = ".cycles_per_elem";

std::string number(double v) {
    std::ostringstream o;
    o.precision(17);
    o << v;
    return o.str();
}

// "NAME=LO:HI" -> name, lo, hi.
void parse_range(const std::string& spec, std::string& name, double& lo, double& hi) {
    const auto eq = spec.find('=');
    const auto colon = spec.find(':', eq == std::string::npos ? 0 : eq);
    const std::optional<double> a = eq == std::string::npos || eq == 0 || colon == std::string::npos
                                        ? std::nullopt
                                        : parse_real(spec.substr(eq + 1, colon - eq - 1));
    const std::optional<double> b = a ? parse_real(spec.substr(colon + 1)) : std::nullopt;
    if (!a || !b)
        throw ConfigError("--range " + excerpt(spec, 80) + ": expected NAME=LO:HI with finite numbers, e.g. hbm.latency_ns=80:500");
    lo = *a;
    hi = *b;
    name = spec.substr(0, eq);
    if (name.rfind("hardware.", 0) == 0) name = name.substr(9);
    if (!(lo <= hi)) throw ConfigError("--range " + spec + ": the low end exceeds the high end");
}

}  // namespace

std::vector<UncertainParam> uncertain_params(const HwConfig& hw, const std::vector<std::string>& ranges,
                                            const std::vector<KernelEstimate>& kernel) {
    std::vector<UncertainParam> out;
    for (const EstimatedParam& e : estimated_params(hw))
        out.push_back({e.param->name, e.param->unit, e.value, e.range.lo, e.range.hi, e.range.lo_reason,
                       e.range.hi_reason, -1, e.param->kind});
    for (size_t i = 0; i < hw.costs.size(); ++i) {
        const CostEntry& c = hw.costs[i];
        if (!c.estimate || !c.uncertainty || c.id.empty()) continue;
        out.push_back({kCostPrefix + c.id + kCostField, "cycles/elem", c.cycles_per_elem, c.uncertainty->lo,
                       c.uncertainty->hi, c.uncertainty->lo_reason, c.uncertainty->hi_reason, int(i)});
    }
    for (const KernelEstimate& k : kernel) {
        UncertainParam p{k.key, "", k.value, k.lo, k.hi, k.lo_why, k.hi_why, -1, ParamKind::integer};
        p.kernel_key = true;
        out.push_back(std::move(p));
    }
    for (const auto& spec : ranges) {
        UncertainParam p;
        parse_range(spec, p.name, p.lo, p.hi);
        p.lo_why = p.hi_why = "--range";
        const HwParam* hp = hw_params().find(p.name);
        bool found = false;
        for (auto& q : out)
            if (q.name == p.name) {
                // The new ends must be values the parameter can take, as a --set would check:
                // a cost row's cycles_per_elem is in [0, 1e4] (the loader's domain).
                const bool cost = q.cost_row >= 0;
                for (double v : {p.lo, p.hi})
                    if (cost ? (v < 0 || v > 1e4) : (hp && !hp->problem(v).empty()))
                        throw ConfigError("--range " + excerpt(spec, 80) + ": expected " +
                                          (cost ? std::string("cycles per element in [0, 10000]") : hp->expected()) +
                                          " for " + p.name + ", got " + short_number(v));
                q.lo = p.lo, q.hi = p.hi, q.lo_why = q.hi_why = "--range";
                found = true;
            }
        if (found) continue;
        if (!hp)
            throw ConfigError("--range " + spec + ": '" + p.name +
                              "' is neither a hardware parameter (bnsim params lists them) nor an estimated cost row");
        for (double v : {p.lo, p.hi})
            if (!hp->problem(v).empty())
                throw ConfigError("--range " + excerpt(spec, 80) + ": expected " + hp->expected() + " for " + p.name +
                                  ", got " + short_number(v));
        p.unit = hp->unit;
        p.kind = hp->kind;
        p.value = hp->get(hw);
        out.push_back(p);
    }
    return out;
}

void set_uncertain(HwConfig& hw, const UncertainParam& p, double v) {
    if (p.kernel_key) return;
    if (p.cost_row >= 0) hw.costs.at(size_t(p.cost_row)).cycles_per_elem = v;
    else hw_params().at(p.name).set(hw, v);
}

std::pair<std::string, std::string> uncertain_override(const UncertainParam& p, double v) {
    return {p.kernel_key ? p.name : "hardware." + p.name, number(v)};
}

Overrides kernel_overrides(const std::vector<UncertainParam>& params, const std::vector<double>& values) {
    Overrides out;
    for (size_t i = 0; i < params.size() && i < values.size(); ++i)
        if (params[i].kernel_key) out.push_back(uncertain_override(params[i], values[i]));
    return out;
}

}  // namespace bnsim
