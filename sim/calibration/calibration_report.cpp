#include "sim/calibration/calibration_report.h"

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
    j["pass"] = calibration_passes(rows);
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

bool calibration_passes(const std::vector<CalibrationRow>& rows) {
    for (const auto& r : rows)
        if (!r.within) return false;
    return true;
}

void print_calibration_table(const MeasurementSet& set, const std::vector<CalibrationRow>& rows, std::ostream& out) {
    const double tol = set.tolerance_pct;
    out << "calibration against " << set.file << " (tolerance " << tol
        << "%; * = third-party figure; fit = the cost table was fitted to it, pred = a prediction)\n";
    out << std::left << std::setw(34) << "id" << std::setw(30) << "metric" << std::right << std::setw(12)
        << "measured" << std::setw(12) << "simulated" << std::setw(9) << "error" << "  role  within\n";
    int within = 0, fitted = 0;
    std::vector<std::string> outside;
    for (const auto& row : rows) {
        const Measurement& m = row.m;
        if (row.within) ++within;
        else outside.push_back(m.id);
        if (m.fitted) ++fitted;
        std::string shown = m.parameter.empty() ? m.metric : m.parameter;
        if (m.baseline) shown += " (diff)";
        const std::string id = m.id + (m.third_party ? " *" : "");
        const char* role = m.fitted ? "fit " : "pred";
        out << std::left << std::setw(34) << id << std::setw(30) << shown << std::right << std::setw(12)
            << value(m.metric, m.measured);
        if (!row.ran) {
            out << std::setw(12) << "-" << std::setw(9) << "-" << "  " << role << "  FAILED: " << row.error << "\n";
            continue;
        }
        std::ostringstream e;
        e << std::showpos << std::fixed << std::setprecision(1) << row.error_pct << "%";
        out << std::setw(12) << value(m.metric, row.simulated) << std::setw(9) << e.str() << "  " << role << "  "
            << (row.within ? "yes" : !m.model_gap.empty() ? "NO (model gap)" : "NO") << "\n";
    }
    out << within << " of " << rows.size() << " measurements within " << tol << "% (" << fitted << " fitted, "
        << int(rows.size()) - fitted << " predictions)";
    if (!outside.empty()) {
        out << "; outside:";
        for (const auto& id : outside) out << " " << id;
    }
    out << "\n";
    bool header = false;
    for (const auto& row : rows) {
        if (row.within || row.m.model_gap.empty()) continue;
        if (!header) out << "model gaps (measurements.yaml, model_gap):\n";
        header = true;
        out << "  " << row.m.id << ": " << row.m.model_gap << "\n";
    }
}

}  // namespace bnsim
