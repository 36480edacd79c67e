#include "sim/report/calibration_report.h"

#include <cmath>
#include <iomanip>
#include <ostream>
#include <sstream>

namespace bnsim {

using json = nlohmann::ordered_json;

void score(CalibrationRow& row, double tolerance_pct) {
    if (!row.ran) {
        row.within = false;
        return;
    }
    row.error_pct = (row.simulated - row.m.measured) / row.m.measured * 100.0;
    row.within = std::isfinite(row.error_pct) && std::fabs(row.error_pct) <= tolerance_pct;
}

json calibration_json(const MeasurementSet& set, const std::vector<CalibrationRow>& rows) {
    json j;
    j["measurements"] = set.file;
    j["tolerance_pct"] = set.tolerance_pct;
    json arr = json::array();
    int within = 0, fitted = 0;
    json outside = json::array(), gaps = json::array();
    for (const auto& r : rows) {
        json o;
        o["id"] = r.m.id;
        o["config"] = r.m.config;
        if (r.m.baseline) o["baseline"] = *r.m.baseline;
        if (!r.m.sets.empty()) o["set"] = r.m.sets;
        o["metric"] = r.m.metric;
        if (!r.m.parameter.empty()) o["parameter"] = r.m.parameter;
        o["measured"] = r.m.measured;
        if (r.ran) {
            o["simulated"] = r.simulated;
            o["error_pct"] = r.error_pct;
        } else {
            o["simulated"] = nullptr;
            o["error_pct"] = nullptr;
            o["error"] = r.error;
        }
        o["within_tolerance"] = r.within;
        o["third_party"] = r.m.third_party;
        o["fitted"] = r.m.fitted;
        o["source"] = r.m.source;
        o["uncertainty"] = r.m.uncertainty;
        if (!r.m.model_gap.empty()) o["model_gap"] = r.m.model_gap;
        arr.push_back(o);
        if (r.within) ++within;
        else outside.push_back(r.m.id);
        if (r.m.fitted) ++fitted;
        if (!r.within && !r.m.model_gap.empty()) gaps.push_back(r.m.id);
    }
    j["rows"] = arr;
    j["summary"] = {{"rows", rows.size()},  {"within", within},
                    {"fitted", fitted},     {"predictions", int(rows.size()) - fitted},
                    {"outside", outside},   {"outside_model_gap", gaps}};
    j["pass"] = outside.empty();
    return j;
}

static std::string value(const std::string& metric, double v) {
    std::ostringstream o;
    if (metric == "dma_efficiency") {
        o << std::fixed << std::setprecision(v < 0.1 ? 2 : 1) << v * 100 << " %";
    } else if (std::fabs(v) >= 10000) {
        o << std::fixed << std::setprecision(2) << v / 1000 << " us";
    } else {
        const bool whole = std::fabs(v - std::round(v)) < 0.05;
        o << std::fixed << std::setprecision(v < 100 || (v < 1000 && !whole) ? 1 : 0) << v << " ns";
    }
    return o.str();
}

void print_calibration_table(const json& r, std::ostream& out) {
    const double tol = r["tolerance_pct"].get<double>();
    out << "calibration against " << r["measurements"].get<std::string>() << " (tolerance " << tol
        << "%; * = third-party figure; fit = the cost table was fitted to it, pred = a prediction)\n";
    out << std::left << std::setw(34) << "id" << std::setw(30) << "metric" << std::right << std::setw(12)
        << "measured" << std::setw(12) << "simulated" << std::setw(9) << "error" << "  role  within\n";
    for (const auto& row : r["rows"]) {
        const std::string metric = row["metric"].get<std::string>();
        std::string shown = metric;
        if (row.contains("parameter")) shown = row["parameter"].get<std::string>();
        if (row.contains("baseline")) shown += " (diff)";
        std::string id = row["id"].get<std::string>() + (row["third_party"].get<bool>() ? " *" : "");
        const char* role = row["fitted"].get<bool>() ? "fit " : "pred";
        out << std::left << std::setw(34) << id << std::setw(30) << shown << std::right << std::setw(12)
            << value(metric, row["measured"].get<double>());
        if (row["simulated"].is_null()) {
            out << std::setw(12) << "-" << std::setw(9) << "-" << "  " << role << "  FAILED: " << row["error"].get<std::string>() << "\n";
            continue;
        }
        std::ostringstream e;
        e << std::showpos << std::fixed << std::setprecision(1) << row["error_pct"].get<double>() << "%";
        out << std::setw(12) << value(metric, row["simulated"].get<double>()) << std::setw(9) << e.str() << "  " << role
            << "  " << (row["within_tolerance"].get<bool>() ? "yes" : row.contains("model_gap") ? "NO (model gap)" : "NO")
            << "\n";
    }
    const json& s = r["summary"];
    out << s["within"].get<int>() << " of " << s["rows"].get<size_t>() << " measurements within " << tol << "% ("
        << s["fitted"].get<int>() << " fitted, " << s["predictions"].get<int>() << " predictions)";
    if (!s["outside"].empty()) {
        out << "; outside:";
        for (const auto& id : s["outside"]) out << " " << id.get<std::string>();
    }
    out << "\n";
    bool header = false;
    for (const auto& row : r["rows"]) {
        if (row["within_tolerance"].get<bool>() || !row.contains("model_gap")) continue;
        if (!header) out << "model gaps (measurements.yaml, model_gap):\n";
        header = true;
        out << "  " << row["id"].get<std::string>() << ": " << row["model_gap"].get<std::string>() << "\n";
    }
}

}  // namespace bnsim
