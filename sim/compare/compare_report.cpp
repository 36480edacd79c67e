#include "sim/compare/compare_report.h"
#include "sim/measured/measured_runs.h"
#include "sim/report/chart_page.h"
#include "sim/report/decimal_text.h"
#include "sim/report/html_text.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <vector>

namespace bnsim {

using json = nlohmann::ordered_json;

namespace {

// A value in its metric's unit, readable: ns metrics in ns or us, fractions as percent.
std::string show(const std::string& metric, double v) {
    if (metric_is_ns(metric))
        return v >= 10000 ? fixed_decimals(v / 1000, 2) + " us" : fixed_decimals(v, v >= 1000 ? 0 : 1) + " ns";
    if (metric == "dma_efficiency") return fixed_decimals(v * 100, 2) + " %";
    return fixed_decimals(v, 3);
}

std::string keys_text(const Overrides& keys) {
    std::string s;
    for (const auto& [k, v] : keys) s += (s.empty() ? "" : " ") + k + "=" + v;
    return s;
}

std::string pct(const std::optional<double>& v) { return v ? signed_percent(*v) : "-"; }

void print_points(const PointsComparison& r, std::ostream& out) {
    out << "compare " << r.measured_file << " (" << r.points.size() + r.failed.size() << " points, " << r.format
        << ") against " << r.against << "\n";
    size_t w = 4, wk = 4;
    for (const auto& p : r.points) {
        w = std::max(w, p.id.size());
        wk = std::max(wk, keys_text(p.keys).size());
    }
    out << std::left << std::setw(int(w) + 2) << "id" << std::setw(int(wk) + 2) << "keys" << std::setw(30) << "metric"
        << std::right << std::setw(12) << "measured" << std::setw(12) << "predicted" << std::setw(9) << "error" << "\n";
    for (const auto& p : r.points)
        out << std::left << std::setw(int(w) + 2) << p.id << std::setw(int(wk) + 2) << keys_text(p.keys) << std::setw(30)
            << p.metric << std::right << std::setw(12) << show(p.metric, p.measured) << std::setw(12)
            << show(p.metric, p.predicted) << std::setw(9) << pct(p.error_pct) << "\n";
    for (const auto& p : r.failed)
        out << std::left << std::setw(int(w) + 2) << p.id << "could not be predicted: " << p.error << "\n";
    out << "MAPE " << (r.mape_pct ? fixed_decimals(*r.mape_pct, 1) + "%" : "-");
    if (r.max_error_pct) out << ", max error " << pct(r.max_error_pct) << " (" << r.max_error_point << ")";
    out << ", Spearman " << (r.spearman ? fixed_decimals(*r.spearman, 3) : "-");
    if (r.best_config_agrees)
        out << ", best config: measured " << *r.measured_best << ", predicted " << *r.predicted_best
            << (*r.best_config_agrees ? " (agrees)" : " (DIFFERS)");
    out << "\n";
    for (const auto& p : r.points)
        if (p.band_contains)
            out << "band   " << p.id << ": 90% in [" << show(p.metric, *p.band_low_ns) << ", "
                << show(p.metric, *p.band_high_ns) << "] (joint, with the model's own error) "
                << (*p.band_contains ? "holds" : "MISSES") << " the measured " << show(p.metric, p.measured) << "\n";
    for (const auto& k : r.kernels)
        out << "kernel " << k.kernel << ": " << k.points << " configs (" << k.metric << "), Spearman "
            << (k.spearman ? fixed_decimals(*k.spearman, 3) : "-")
            << (k.same_order ? ", ordered as measured" : ", NOT ordered as measured") << "\n";
}

void print_profile(const ProfileComparison& r, std::ostream& out) {
    out << "profile " << r.measured_file << (r.measured_is_simulation ? " (a simulation)" : " (measured)") << " against "
        << r.against << " (simulated)\n";
    auto row = [&](const std::string& name, const MeasuredPredicted& x) {
        out << "  " << std::left << std::setw(26) << name << std::right << std::setw(14)
            << fixed_decimals(x.measured_ns / 1000, 3) + " us" << std::setw(14)
            << fixed_decimals(x.predicted_ns / 1000, 3) + " us" << std::setw(9) << pct(x.error_pct) << "\n";
    };
    out << "  " << std::left << std::setw(26) << "" << std::right << std::setw(14) << "measured" << std::setw(14)
        << "predicted" << std::setw(9) << "error" << "\n";
    if (r.total_time) row("total_time", *r.total_time);
    for (const auto& e : r.engines) row(e.name + " busy", e);
    for (const auto& p : r.phases) row(p.name, p);
    if (!r.phases.empty())
        out << "  (phase windows from when each phase leads to its last end, over " << r.phase_windows_include << ")\n";
    if (!r.opcodes.empty()) {
        out << "instruction durations per (engine, opcode): count, mean, p50, p90 (measured / predicted)\n";
        for (const auto& o : r.opcodes) {
            auto side = [](const std::optional<DurationStats>& d) {
                if (!d) return std::string("-");
                return std::to_string(d->count) + ", " + fixed_decimals(d->mean_ns, 1) + ", " + fixed_decimals(d->p50_ns, 1) +
                       ", " + fixed_decimals(d->p90_ns, 1) + " ns";
            };
            out << "  " << std::left << std::setw(26) << o.engine + " " + o.opcode << side(o.measured) << " / "
                << side(o.predicted) << "  " << pct(o.mean_error_pct) << "\n";
        }
    }
}

// ---- Charts (sim/report/charts.js) ---------------------------------------------------

// One scatter of predicted against measured per unit: times in us, DMA efficiency in percent,
// anything else under its own name; one series per metric, so no axis mixes units.
void write_scatters(std::ostream& h, const PointsComparison& r) {
    struct Group {
        std::string axis_unit;
        std::vector<std::string> metrics;
    };
    std::vector<Group> groups;
    auto group_of = [&](const std::string& metric) -> Group& {
        const std::string unit = metric_is_ns(metric) ? "us" : metric == "dma_efficiency" ? "%" : metric;
        for (auto& g : groups)
            if (g.axis_unit == unit) return g;
        groups.push_back({unit, {}});
        return groups.back();
    };
    for (const auto& p : r.points) {
        if (!(p.measured > 0 && p.predicted > 0)) continue;
        Group& g = group_of(p.metric);
        if (std::find(g.metrics.begin(), g.metrics.end(), p.metric) == g.metrics.end()) g.metrics.push_back(p.metric);
    }
    if (groups.empty()) {
        h << "<p>No point to plot.</p>";
        return;
    }
    const double band = r.tolerance_pct.value_or(10);
    for (const auto& g : groups) {
        const double scale = g.axis_unit == "us" ? 1e-3 : g.axis_unit == "%" ? 100 : 1;
        const std::string unit_text = g.axis_unit == "us" ? " (\u00b5s)" : g.axis_unit == "%" ? " (%)" : "";
        json series = json::array();
        double lo = 1e300, hi = 0;
        for (size_t k = 0; k < g.metrics.size(); ++k) {
            json pts = json::array();
            for (const auto& p : r.points)
                if (p.metric == g.metrics[k] && p.measured > 0 && p.predicted > 0) {
                    const double x = p.measured * scale, y = p.predicted * scale;
                    lo = std::min({lo, x, y}), hi = std::max({hi, x, y});
                    pts.push_back({{"x", x}, {"y", y},
                                   {"tip", p.id + ": measured " + show(p.metric, p.measured) + ", predicted " +
                                               show(p.metric, p.predicted) + " (" + pct(p.error_pct) + ")"}});
                }
            series.push_back({{"label", g.metrics[k]}, {"points", pts}});
        }
        const bool log = hi / lo > 20;
        std::string title = "Predicted against measured";
        if (g.axis_unit != "us" && g.axis_unit != "%") title += ": " + g.axis_unit;
        json spec{{"kind", "scatter"},
                  {"title", title},
                  {"note", std::string("each point one measured row; dashed: within \u00b1") + fixed_decimals(band, 0) +
                               (r.tolerance_pct ? "% (--tolerance)" : "%")},
                  {"x", {{"title", "measured" + unit_text}, {"log", log}}},
                  {"y", {{"title", "predicted" + unit_text}, {"log", log}}},
                  {"band_pct", band},
                  {"series", series}};
        write_chart(h, spec, 560, 520);
    }
}

// Grouped bars of busy time per engine, one bar per series.
void write_busy_bars(std::ostream& h, const std::string& title, const std::vector<std::string>& labels,
                     const std::vector<std::string>& series, const std::vector<std::vector<double>>& values_us /* [label][series] */) {
    json ss = json::array();
    for (size_t k = 0; k < series.size(); ++k) {
        json v = json::array(), tips = json::array();
        for (size_t i = 0; i < labels.size(); ++i) {
            v.push_back(values_us[i][k]);
            tips.push_back(series[k] + ", " + labels[i] + ": " + fixed_decimals(values_us[i][k], 3) + " \u00b5s");
        }
        ss.push_back({{"label", series[k]}, {"values", v}, {"tips", tips}});
    }
    json spec{{"kind", "bars"},
              {"title", title},
              {"x", {{"title", "engine"}, {"labels", labels}}},
              {"y", {{"title", "busy time (\u00b5s)"}}},
              {"series", ss}};
    write_chart(h, spec, std::max(520, 60 * int(labels.size() * series.size()) + 160), 340);
}

}  // namespace

void print_compare_report(const CompareReport& r, std::ostream& out) {
    if (r.points) print_points(*r.points, out);
    if (r.profile) print_profile(*r.profile, out);
}

std::string compare_html(const CompareReport& report) {
    std::ostringstream h;
    h << "<!DOCTYPE html><html><head><meta charset='utf-8'><title>bnsim compare</title>"
      << "<style>body{font-family:sans-serif;margin:2em}pre{font-size:12px;overflow-x:auto}table{border-collapse:collapse}td,th{border:1px solid #ccc;"
         "padding:2px 8px;text-align:right}td:first-child,th:first-child{text-align:left}</style></head><body>";
    h << "<h1>bnsim compare</h1>";
    if (report.points) {
        const PointsComparison& r = *report.points;
        h << "<p>" << html_escape(r.measured_file) << " against " << html_escape(r.against) << ": MAPE "
          << (r.mape_pct ? fixed_decimals(*r.mape_pct, 2) + "%" : "-") << ", max error " << pct(r.max_error_pct)
          << ", Spearman " << (r.spearman ? fixed_decimals(*r.spearman, 3) : "-") << ", best config agrees: "
          << (!r.best_config_agrees ? "-" : *r.best_config_agrees ? "yes" : "no") << "</p>";
        write_scatters(h, r);
        h << "<table><tr><th>id</th><th>keys</th><th>metric</th><th>measured</th><th>predicted</th><th>error</th></tr>";
        for (const auto& p : r.points)
            h << "<tr><td>" << html_escape(p.id) << "</td><td>" << html_escape(keys_text(p.keys)) << "</td><td>" << p.metric
              << "</td><td>" << show(p.metric, p.measured) << "</td><td>" << show(p.metric, p.predicted) << "</td><td>"
              << pct(p.error_pct) << "</td></tr>";
        h << "</table>";
        // Per-engine busy time of each predicted point.
        std::vector<std::string> labels, series;
        std::vector<std::vector<double>> values;
        for (const auto& p : r.points)
            for (const auto& [engine, ns] : p.engine_busy_ns)
                if (std::find(labels.begin(), labels.end(), engine) == labels.end()) labels.push_back(engine);
        for (const auto& p : r.points)
            if (!p.engine_busy_ns.empty()) series.push_back(p.id);
        for (const auto& l : labels) {
            std::vector<double> row;
            for (const auto& p : r.points)
                if (!p.engine_busy_ns.empty()) {
                    const auto it = p.engine_busy_ns.find(l);
                    row.push_back(it == p.engine_busy_ns.end() ? 0 : it->second / 1000);
                }
            values.push_back(row);
        }
        if (!labels.empty()) write_busy_bars(h, "Predicted busy time per engine", labels, series, values);
    }
    if (report.profile) {
        const ProfileComparison& p = *report.profile;
        std::vector<std::string> labels;
        std::vector<std::vector<double>> values;
        for (const auto& e : p.engines) {
            labels.push_back(e.name);
            values.push_back({e.measured_ns / 1000, e.predicted_ns / 1000});
        }
        write_busy_bars(h, "Busy time per engine: " + p.measured_file + " against the simulation", labels,
                        {"measured", "predicted"}, values);
        std::ostringstream t;
        print_profile(p, t);
        h << "<pre>" << html_escape(t.str()) << "</pre>";
    }
    write_chart_scripts(h);
    h << "</body></html>\n";
    return h.str();
}

}  // namespace bnsim
