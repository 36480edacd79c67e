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

// A value as the text table shows it, in its kind: shortest form that reads back the same.
std::string text(const HwParam& p, double v) {
    switch (p.kind) {
    case ParamKind::integer: return std::to_string(int64_t(v));
    case ParamKind::boolean: return v != 0 ? "true" : "false";
    case ParamKind::real: break;
    }
    std::ostringstream s;
    s << std::setprecision(15) << v;
    return s.str();
}

}  // namespace

ParamsReport params_report(const HwConfig& hw, const std::string& preset_file) {
    ParamsReport r{hw.name, preset_file, {}};
    for (const HwParam& p : hw_params()) {
        const auto it = hw.provenance.find(p.name);
        const ParamProvenance prov = it == hw.provenance.end() ? ParamProvenance{} : it->second;
        r.params.push_back({&p, p.get(hw), prov});
    }
    return r;
}

json to_json(const ParamsReport& r) {
    json out;
    out["hardware"] = r.hardware;
    out["preset"] = r.preset;
    json params = json::array();
    for (const ParamRow& row : r.params) {
        const HwParam& p = *row.param;
        const ParamProvenance& prov = row.provenance;
        json o;
        o["name"] = p.name;
        o["value"] = typed(p, row.value);
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

void print_params_table(const ParamsReport& r, std::ostream& out) {
    int estimates = 0;
    std::vector<std::vector<std::string>> rows{{"name", "value", "unit", "kind", "allowed", "provenance"}};
    for (const ParamRow& row : r.params) {
        const HwParam& p = *row.param;
        const ParamProvenance& given = row.provenance;
        std::string prov;
        if (given.estimate) {
            ++estimates;
            prov = "estimate";
            if (given.uncertainty) prov += " [" + text(p, given.uncertainty->lo) + ", " + text(p, given.uncertainty->hi) + "]";
            if (!given.source.empty()) prov += "; " + given.source;
        } else if (!given.source.empty()) {
            prov = given.source;
        } else {
            prov = "-";
        }
        std::string value = text(p, row.value);
        if (given.overridden) value += " (--set)";
        rows.push_back({p.name, value, p.unit, param_kind_name(p.kind), "[" + text(p, p.min) + ", " + text(p, p.max) + "]", prov});
    }
    out << "hardware " << r.hardware << " (" << r.preset << "): " << r.params.size() << " parameters, " << estimates
        << " estimates\n";
    std::vector<size_t> width(rows[0].size(), 0);
    for (const auto& row : rows)
        for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
    for (const auto& row : rows) {
        for (size_t c = 0; c < row.size(); ++c) {
            out << row[c];
            if (c + 1 < row.size()) out << std::string(width[c] - row[c].size() + 2, ' ');
        }
        out << "\n";
    }
}

}  // namespace bnsim
