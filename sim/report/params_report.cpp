#include "sim/report/params_report.h"

#include <algorithm>
#include <cstdint>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <vector>

#include "models/hw_params.h"

namespace bnsim {

using json = nlohmann::ordered_json;

namespace {

json typed(const HwParam& p, double v) {
    switch (p.kind) {
    case ParamKind::integer: return json(int64_t(v));
    case ParamKind::boolean: return json(v != 0);
    case ParamKind::real: break;
    }
    return json(v);
}

// A value as the text table shows it: shortest form that reads back the same.
std::string text(const json& v) {
    if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
    if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
    std::ostringstream s;
    s << std::setprecision(15) << v.get<double>();
    return s.str();
}

}  // namespace

json params_json(const HwConfig& hw, const std::string& preset_file) {
    json out;
    out["hardware"] = hw.name;
    out["preset"] = preset_file;
    json params = json::array();
    for (const HwParam& p : hw_params()) {
        const auto it = hw.provenance.find(p.name);
        const ParamProvenance prov = it == hw.provenance.end() ? ParamProvenance{} : it->second;
        json o;
        o["name"] = p.name;
        o["value"] = typed(p, p.get(hw));
        o["unit"] = p.unit;
        o["kind"] = param_kind_name(p.kind);
        o["allowed"] = json::array({typed(p, p.min), typed(p, p.max)});
        o["source"] = prov.source.empty() ? json(nullptr) : json(prov.source);
        o["estimate"] = prov.estimate;
        if (prov.uncertainty) {
            o["uncertainty"] = json::array({typed(p, prov.uncertainty->lo), typed(p, prov.uncertainty->hi)});
            o["uncertainty_why"] = json::array({prov.uncertainty->lo_reason, prov.uncertainty->hi_reason});
        } else {
            o["uncertainty"] = nullptr;
            o["uncertainty_why"] = nullptr;
        }
        o["note"] = prov.note;
        o["overridden"] = prov.overridden;
        params.push_back(o);
    }
    out["params"] = params;
    return out;
}

void print_params_table(const json& report, std::ostream& out) {
    const json& params = report["params"];
    int estimates = 0;
    std::vector<std::vector<std::string>> rows{{"name", "value", "unit", "kind", "allowed", "provenance"}};
    for (const auto& p : params) {
        std::string prov;
        if (p["estimate"].get<bool>()) {
            ++estimates;
            prov = "estimate";
            if (!p["uncertainty"].is_null())
                prov += " [" + text(p["uncertainty"][0]) + ", " + text(p["uncertainty"][1]) + "]";
            if (!p["source"].is_null()) prov += "; " + p["source"].get<std::string>();
        } else if (!p["source"].is_null()) {
            prov = p["source"].get<std::string>();
        } else {
            prov = "-";
        }
        std::string value = text(p["value"]);
        if (p["overridden"].get<bool>()) value += " (--set)";
        rows.push_back({p["name"].get<std::string>(), value, p["unit"].get<std::string>(),
                        p["kind"].get<std::string>(),
                        "[" + text(p["allowed"][0]) + ", " + text(p["allowed"][1]) + "]", prov});
    }
    out << "hardware " << report["hardware"].get<std::string>() << " (" << report["preset"].get<std::string>()
        << "): " << params.size() << " parameters, " << estimates << " estimates\n";
    std::vector<size_t> width(rows[0].size(), 0);
    for (const auto& r : rows)
        for (size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], r[c].size());
    for (const auto& r : rows) {
        for (size_t c = 0; c < r.size(); ++c) {
            out << r[c];
            if (c + 1 < r.size()) out << std::string(width[c] - r[c].size() + 2, ' ');
        }
        out << "\n";
    }
}

}  // namespace bnsim
