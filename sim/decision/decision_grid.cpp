#include "sim/decision/decision_grid.h"

#include <sstream>

#include "configfile/config_error.h"
#include "configfile/input_file.h"
#include "configfile/number_text.h"

namespace bnsim {

std::vector<GridAxis> decision_axes_of(const RunConfig& cfg) {
    const KernelEntry& e = *cfg.entry;
    std::vector<GridAxis> axes;
    for (const auto& a : e.tune_axes ? e.tune_axes(cfg.kernel_params, cfg.target()) : e.decision_axes)
        if (!a.values.empty()) axes.push_back({a.key, a.values});
    return axes;
}

GridAxis parse_axis(const std::string& spec) {
    const auto eq = spec.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
        throw ConfigError("--axis " + excerpt(spec, 80) + ": expected KEY=V1,V2,... (e.g. shape.C=64,128)");
    GridAxis a;
    a.key = spec.substr(0, eq);
    if (a.key.size() > 200) throw ConfigError("--axis " + excerpt(spec, 80) + ": expected a dotted key of a run config");
    std::stringstream ss(spec.substr(eq + 1));
    for (std::string v; std::getline(ss, v, ',');)
        if (!v.empty()) a.values.push_back(v);
    if (a.values.empty()) throw ConfigError("--axis " + excerpt(spec, 80) + ": no values");
    return a;
}

std::string axis_field(const std::string& key) {
    const auto dot = key.rfind('.');
    return key.substr(dot == std::string::npos ? 0 : dot + 1);
}

bool is_on_off(const GridAxis& a) {
    return a.values == std::vector<std::string>{"true", "false"} || a.values == std::vector<std::string>{"false", "true"};
}

std::vector<GridPoint> grid_points(const std::vector<GridAxis>& axes, size_t max_points, const std::string& what) {
    // Each axis is short, their product need not be: counted before anything is built.
    double n = 1;
    std::string dims;
    for (const auto& a : axes) {
        n *= double(a.values.size());
        dims += (dims.empty() ? "" : " x ") + std::to_string(a.values.size());
    }
    if (n > double(max_points))
        throw ConfigError(what + ": the grid is " + dims + " = " + short_number(n) + " configs; expected at most " +
                          std::to_string(max_points) + ": drop an axis or values");
    std::vector<GridPoint> pts{GridPoint{}};
    for (const auto& a : axes) {
        std::vector<GridPoint> next;
        next.reserve(pts.size() * a.values.size());
        for (const auto& p : pts)
            for (const auto& v : a.values) {
                GridPoint q = p;
                q.values[a.key] = v;
                q.sets.emplace_back(a.key, v);
                next.push_back(std::move(q));
            }
        pts = std::move(next);
    }
    for (auto& p : pts) p.label = grid_label(axes, p.values);
    return pts;
}

std::string grid_label(const std::vector<GridAxis>& axes, const std::map<std::string, std::string>& values) {
    std::string out;
    for (const auto& a : axes)
        if (const auto it = values.find(a.key); it != values.end())
            out += (out.empty() ? "" : " ") + axis_field(a.key) + "=" + it->second;
    return out;
}

std::map<std::string, std::string> choice_values(const KernelSummary& s, const std::vector<GridAxis>& axes) {
    std::map<std::string, std::string> out;
    for (const auto& a : axes)
        if (const SummaryValue* v = s.find(axis_field(a.key))) {
            const bool* b = std::get_if<bool>(v);  // spelt as in the grid's values
            out[a.key] = b ? (*b ? "true" : "false") : to_text(*v);
        }
    return out;
}

}  // namespace bnsim
