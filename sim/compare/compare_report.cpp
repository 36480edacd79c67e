#include "sim/compare/compare_report.h"
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
    if (metric.size() > 3 && metric.compare(metric.size() - 3, 3, "_ns") == 0)
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

// ---- SVG ------------------------------------------------------------------------------

std::string scatter_svg(const std::vector<PointComparison>& points) {
    std::vector<std::tuple<double, double, std::string>> v;
    for (const auto& p : points)
        if (p.measured > 0 && p.predicted > 0) v.emplace_back(p.measured, p.predicted, p.id + " (" + p.metric + ")");
    if (v.empty()) return "<p>No point to plot.</p>";
    double lo = 1e300, hi = 0;
    for (const auto& [m, q, id] : v) lo = std::min({lo, m, q}), hi = std::max({hi, m, q});
    const bool logscale = hi / lo > 20;
    auto tr = [&](double x) { return logscale ? std::log10(x) : x; };
    double a = tr(lo), b = tr(hi);
    if (b - a < 1e-12) a -= 1, b += 1;
    const double pad = (b - a) * 0.05;
    a -= pad, b += pad;
    const int W = 480, M = 60;
    auto px = [&](double x) { return M + (tr(x) - a) / (b - a) * (W - 2 * M); };
    auto py = [&](double y) { return W - M - (tr(y) - a) / (b - a) * (W - 2 * M); };
    std::ostringstream s;
    s << "<svg xmlns='http://www.w3.org/2000/svg' width='" << W << "' height='" << W << "'>";
    s << "<rect x='" << M << "' y='" << M << "' width='" << W - 2 * M << "' height='" << W - 2 * M
      << "' fill='none' stroke='#999'/>";
    s << "<line x1='" << M << "' y1='" << W - M << "' x2='" << W - M << "' y2='" << M
      << "' stroke='#bbb' stroke-dasharray='4 3'/>";
    s << "<text x='" << W / 2 << "' y='" << W - 15 << "' text-anchor='middle' font-size='12'>measured"
      << (logscale ? " (log)" : "") << "</text>";
    s << "<text x='15' y='" << W / 2 << "' text-anchor='middle' font-size='12' transform='rotate(-90 15 " << W / 2
      << ")'>predicted" << (logscale ? " (log)" : "") << "</text>";
    s << "<text x='" << M << "' y='" << W - M + 15 << "' font-size='10'>" << fixed_decimals(lo, 1) << "</text>";
    s << "<text x='" << W - M << "' y='" << W - M + 15 << "' font-size='10' text-anchor='end'>" << fixed_decimals(hi, 1) << "</text>";
    for (const auto& [m, q, id] : v)
        s << "<circle cx='" << fixed_decimals(px(m), 1) << "' cy='" << fixed_decimals(py(q), 1) << "' r='4' fill='#1f77b4'><title>"
          << html_escape(id) << ": measured " << m << ", predicted " << q << "</title></circle>";
    s << "</svg>";
    return s.str();
}

// Grouped bars: one group per label, one bar per series.
std::string bars_svg(const std::vector<std::string>& labels, const std::vector<std::string>& series,
                     const std::vector<std::vector<double>>& values /* [label][series] */, const std::string& unit) {
    double hi = 0;
    for (const auto& r : values)
        for (double x : r) hi = std::max(hi, x);
    if (hi <= 0) return "<p>No busy time to plot.</p>";
    const char* colors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"};
    const int H = 260, M = 40, bw = 16, gap = 18;
    const int W = M * 2 + int(labels.size()) * (int(series.size()) * bw + gap);
    std::ostringstream s;
    s << "<svg xmlns='http://www.w3.org/2000/svg' width='" << std::max(W, 300) << "' height='" << H + 40 << "'>";
    int x = M;
    for (size_t i = 0; i < labels.size(); ++i) {
        for (size_t k = 0; k < series.size(); ++k) {
            const double h = values[i][k] / hi * (H - M);
            s << "<rect x='" << x + int(k) * bw << "' y='" << fixed_decimals(H - h, 1) << "' width='" << bw - 2 << "' height='"
              << fixed_decimals(h, 1) << "' fill='" << colors[k % 6] << "'><title>" << html_escape(labels[i]) << " " << html_escape(series[k])
              << ": " << fixed_decimals(values[i][k], 3) << " " << unit << "</title></rect>";
        }
        s << "<text x='" << x + int(series.size()) * bw / 2 << "' y='" << H + 15
          << "' font-size='11' text-anchor='middle'>" << html_escape(labels[i]) << "</text>";
        x += int(series.size()) * bw + gap;
    }
    for (size_t k = 0; k < series.size(); ++k)
        s << "<text x='" << M + int(k) * 110 << "' y='" << H + 35 << "' font-size='11' fill='" << colors[k % 6] << "'>&#9632; "
          << html_escape(series[k]) << "</text>";
    s << "<text x='4' y='14' font-size='11'>max " << fixed_decimals(hi, 3) << " " << unit << "</text></svg>";
    return s.str();
}

}  // namespace

void print_compare_report(const CompareReport& r, std::ostream& out) {
    if (r.points) print_points(*r.points, out);
    if (r.profile) print_profile(*r.profile, out);
}

std::string compare_html(const CompareReport& report) {
    std::ostringstream h;
    h << "<!DOCTYPE html><html><head><meta charset='utf-8'><title>bnsim compare</title>"
      << "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;"
         "padding:2px 8px;text-align:right}td:first-child,th:first-child{text-align:left}</style></head><body>";
    h << "<h1>bnsim compare</h1>";
    if (report.points) {
        const PointsComparison& r = *report.points;
        h << "<p>" << html_escape(r.measured_file) << " against " << html_escape(r.against) << ": MAPE "
          << (r.mape_pct ? fixed_decimals(*r.mape_pct, 2) + "%" : "-") << ", max error " << pct(r.max_error_pct)
          << ", Spearman " << (r.spearman ? fixed_decimals(*r.spearman, 3) : "-") << ", best config agrees: "
          << (!r.best_config_agrees ? "-" : *r.best_config_agrees ? "yes" : "no") << "</p>";
        h << "<h2>Predicted against measured</h2>" << scatter_svg(r.points);
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
        if (!labels.empty()) h << "<h2>Predicted busy time per engine</h2>" << bars_svg(labels, series, values, "us");
    }
    if (report.profile) {
        const ProfileComparison& p = *report.profile;
        std::vector<std::string> labels;
        std::vector<std::vector<double>> values;
        for (const auto& e : p.engines) {
            labels.push_back(e.name);
            values.push_back({e.measured_ns / 1000, e.predicted_ns / 1000});
        }
        h << "<h2>Busy time per engine: " << html_escape(p.measured_file) << " against the simulation</h2>"
          << bars_svg(labels, {"measured", "predicted"}, values, "us");
        std::ostringstream t;
        print_profile(p, t);
        h << "<pre>" << html_escape(t.str()) << "</pre>";
    }
    h << "</body></html>\n";
    return h.str();
}

}  // namespace bnsim
