#include "sim/calibration/calibration_report.h"

#include <cmath>
#include <iomanip>
#include <ostream>
#include <sstream>

namespace bnsim {

using json = nlohmann::ordered_json;

using Scope = Measurement::Scope;
constexpr Scope kScopes[] = {Scope::instruction, Scope::whole_kernel};  // the report's order

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
    j["whole_kernel_tolerance_pct"] = set.whole_kernel_tolerance_pct;
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
        o["scope"] = scope_name(r.m.scope);
        o["tolerance_pct"] = set.tolerance_for(r.m);
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
    j["groups"] = calibration_groups_json(set, rows);
    j["pass"] = calibration_passes(rows);
    return j;
}

static std::string value(const std::string& metric, double v) {
    std::ostringstream o;
    const bool ns = metric == "hw_parameter" || metric_is_ns(metric);
    if (metric == "dma_efficiency") {
        o << std::fixed << std::setprecision(v < 0.1 ? 2 : 1) << v * 100 << " %";
    } else if (!ns) {
        o << v;  // a count (dma_transfers)
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

namespace {

// One group's rows: count, within, fitted, mean absolute and RMS error of the rows that ran, outside ids.
struct GroupSummary {
    int rows = 0, within = 0, fitted = 0, ran = 0;
    double abs_error_sum = 0, sq_error_sum = 0;
    std::vector<std::string> outside;
    double mape() const { return ran ? abs_error_sum / ran : 0; }
    double rms() const { return ran ? std::sqrt(sq_error_sum / ran) : 0; }
};

GroupSummary summarize(const std::vector<CalibrationRow>& rows, Scope scope) {
    GroupSummary g;
    for (const auto& r : rows) {
        if (r.m.scope != scope) continue;
        ++g.rows;
        if (r.within) ++g.within;
        else g.outside.push_back(r.m.id);
        if (r.m.fitted) ++g.fitted;
        if (r.ran && std::isfinite(r.error_pct)) {
            ++g.ran;
            g.abs_error_sum += std::fabs(r.error_pct);
            g.sq_error_sum += r.error_pct * r.error_pct;
        }
    }
    return g;
}

void print_row(const CalibrationRow& row, std::ostream& out) {
    const Measurement& m = row.m;
    std::string shown = m.parameter.empty() ? m.metric : m.parameter;
    if (m.baseline) shown += " (diff)";
    const std::string id = m.id + (m.third_party ? " *" : "");
    const char* role = m.fitted ? "fit " : "pred";
    out << std::left << std::setw(34) << id << std::setw(30) << shown << std::right << std::setw(12)
        << value(m.metric, m.measured);
    if (!row.ran) {
        out << std::setw(12) << "-" << std::setw(9) << "-" << "  " << role << "  FAILED: " << row.error << "\n";
        return;
    }
    std::ostringstream e;
    e << std::showpos << std::fixed << std::setprecision(1) << row.error_pct << "%";
    out << std::setw(12) << value(m.metric, row.simulated) << std::setw(9) << e.str() << "  " << role << "  "
        << (row.within ? "yes" : !m.model_gap.empty() ? "NO (model gap)" : "NO") << "\n";
}

void print_summary(const GroupSummary& g, const char* what, double tol, std::ostream& out) {
    std::ostringstream mape, rms;
    mape << std::fixed << std::setprecision(1) << g.mape();
    rms << std::fixed << std::setprecision(1) << g.rms();
    out << g.within << " of " << g.rows << " " << what << " within " << tol << "%, MAPE " << mape.str() << "%, RMS "
        << rms.str() << "% ("
        << g.fitted << " fitted, " << g.rows - g.fitted << " predictions)";
    if (!g.outside.empty()) {
        out << "; outside:";
        for (const auto& id : g.outside) out << " " << id;
    }
    out << "\n";
}

}  // namespace

json calibration_groups_json(const MeasurementSet& set, const std::vector<CalibrationRow>& rows) {
    json groups;
    for (Scope sc : kScopes) {
        const GroupSummary g = summarize(rows, sc);
        groups[scope_name(sc)] = {{"rows", g.rows},           {"within", g.within},
                                  {"tolerance_pct", set.tolerance_of(sc)},
                                  {"mape_pct", g.mape()},     {"rms_pct", g.rms()},
                                  {"outside", g.outside}};
    }
    return groups;
}

void print_calibration_table(const MeasurementSet& set, const std::vector<CalibrationRow>& rows, std::ostream& out) {
    out << "calibration against " << set.file << " (tolerance " << set.tolerance_pct << "% per instruction, "
        << set.whole_kernel_tolerance_pct
        << "% per whole kernel; * = third-party figure; fit = the cost table was fitted to it, pred = a prediction)\n";
    for (Scope sc : kScopes) {
        const GroupSummary g = summarize(rows, sc);
        if (g.rows == 0) continue;
        const bool whole = sc == Scope::whole_kernel;
        if (whole) out << "whole kernels (instructions composed: waits, queues, overlap between iterations)\n";
        out << std::left << std::setw(34) << "id" << std::setw(30) << "metric" << std::right << std::setw(12)
            << "measured" << std::setw(12) << "simulated" << std::setw(9) << "error" << "  role  within\n";
        for (const auto& row : rows)
            if (row.m.scope == sc) print_row(row, out);
        print_summary(g, whole ? "whole-kernel measurements" : "per-instruction measurements", set.tolerance_of(sc), out);
    }
    bool header = false;
    for (const auto& row : rows) {
        if (row.within || row.m.model_gap.empty()) continue;
        if (!header) out << "model gaps (measurements.yaml, model_gap):\n";
        header = true;
        out << "  " << row.m.id << ": " << row.m.model_gap << "\n";
    }
}

}  // namespace bnsim
