// bnsim tune's report: JSON, the text table and a self-contained HTML page, all from TuneReport.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "configfile/number_text.h"
#include "sim/report/decimal_text.h"
#include "sim/report/html_text.h"
#include "sim/report/json_or_null.h"
#include "sim/tune/tune.h"

namespace bnsim {

using json = nlohmann::ordered_json;

namespace {

std::string us(double ns) { return std::isfinite(ns) ? fixed_decimals(ns / 1000, 2) + " us" : "-"; }

std::string percent(double share) { return fixed_decimals(share * 100, 0) + "%"; }

const TunedConfig& used(const TuneReport& r) { return r.confirmed[r.keep_own ? r.own : r.best]; }

}  // namespace

json tune_json(const TuneReport& r) {
    json j;
    j["config"] = r.config;
    j["hardware_file"] = r.hardware_file;
    j["kernel"] = r.kernel;
    json axes = json::array();
    for (const auto& a : r.axes) axes.push_back({{"key", a.key}, {"values", a.values}});
    j["axes"] = axes;
    j["screened"] = r.screened;
    j["infeasible"] = r.infeasible;
    if (!r.infeasible_example.empty()) j["infeasible_example"] = r.infeasible_example;
    const TunedConfig& u = used(r);
    j["use"] = {{"config", u.label}, {"sets", json::object()}, {"own", u.own}, {"latency_ns", ns_or_null(u.latency_ns)},
                {"binding", u.binding}, {"phases", u.phases}};
    for (const auto& [k, v] : u.sets) j["use"]["sets"][k] = v;
    j["uncertainty"] = {{"p5_ns", ns_or_null(u.p5_ns)}, {"p50_ns", ns_or_null(u.p50_ns)}, {"p95_ns", ns_or_null(u.p95_ns)},
                        {"widened_p5_ns", ns_or_null(r.band_p5_ns)}, {"widened_p95_ns", ns_or_null(r.band_p95_ns)},
                        {"model_error_pct", r.model_error_pct}, {"samples", r.samples}, {"params", r.sampled}};
    j["own"] = {{"config", r.confirmed[r.own].label}, {"latency_ns", ns_or_null(r.confirmed[r.own].latency_ns)}};
    j["best"] = {{"config", r.confirmed[r.best].label}, {"latency_ns", ns_or_null(r.confirmed[r.best].latency_ns)}};
    j["difference_pct"] = std::round(r.difference_pct * 100) / 100;
    j["keep_own"] = r.keep_own;
    j["reason"] = r.reason;
    j["tie_pct"] = r.tie_pct;
    j["choice_best_probability"] = std::round(r.choice_best_probability * 10000) / 10000;
    j["best_most_often"] = r.best_most_often;
    json on_off = json::array();
    for (const auto& v : r.on_off)
        on_off.push_back({{"key", v.key}, {"best_on_ns", ns_or_null(v.on_ns)}, {"best_off_ns", ns_or_null(v.off_ns)},
                          {"saves_ns", ns_or_null(v.saves_ns())}});
    j["on_off_decisions"] = on_off;
    json conf = json::array();
    for (const auto& t : r.confirmed)
        conf.push_back({{"config", t.label}, {"own", t.own}, {"estimate_ns", ns_or_null(t.estimate_ns)},
                        {"latency_ns", ns_or_null(t.latency_ns)}, {"binding", t.binding}, {"phases", t.phases},
                        {"p5_ns", ns_or_null(t.p5_ns)}, {"p50_ns", ns_or_null(t.p50_ns)}, {"p95_ns", ns_or_null(t.p95_ns)},
                        {"best_share", std::round(t.best_share * 10000) / 10000}});
    j["confirmed"] = conf;
    j["method"] = "every point of the axes screened by the list scheduler's estimate; the best " +
                  std::to_string(r.confirmed.size()) +
                  " candidates (the screen's best, the kernel's own choice, the best with each on/off decision "
                  "flipped) confirmed in full simulation; each priced again in " + std::to_string(r.samples) +
                  " joint Halton samples of the estimated parameters, on its full simulation's scale; ties within " +
                  short_number(r.tie_pct) + "% go to the kernel's choice";
    return j;
}

void print_tune(const TuneReport& r, std::ostream& out) {
    const TunedConfig& u = used(r);
    const TunedConfig& own = r.confirmed[r.own];
    const TunedConfig& best = r.confirmed[r.best];
    out << "tune        " << r.kernel << ": " << r.screened << " configs screened by estimate";
    if (r.infeasible) out << " (" << r.infeasible << " do not fit)";
    out << ", " << r.confirmed.size() << " confirmed in full simulation, " << r.samples << " joint samples of "
        << r.sampled.size() << " estimated parameters\n";
    out << "use         " << u.label << (u.own ? "  (the kernel's own choice)" : "") << "\n";
    out << "latency     " << us(u.latency_ns) << ", 90% in [" << us(r.band_p5_ns) << ", " << us(r.band_p95_ns)
        << "] (joint samples widened by the model's own " << short_number(r.model_error_pct) << "%)\n";
    out << "bound by    " << u.binding << " (" << u.phases << ")\n";
    out << "kernel's    " << own.label << "  " << us(own.latency_ns);
    if (r.best != r.own) out << "; best " << best.label << " " << us(best.latency_ns);
    out << "\n            " << r.reason << "\n";
    if (r.samples)
        out << "robustness  the kernel's choice is within " << short_number(r.tie_pct) << "% of the best in "
            << percent(r.choice_best_probability) << " of the joint samples; most often best: " << r.best_most_often << "\n";
    else
        out << "robustness  not checked (no joint samples)\n";
    for (const auto& v : r.on_off) {
        if (!std::isfinite(v.saves_ns())) continue;
        const bool on = v.saves_ns() >= 0;
        out << "on/off      " << axis_field(v.key) << " " << (on ? "on" : "off") << " saves " << us(std::fabs(v.saves_ns()))
            << " (best with it on " << us(v.on_ns) << ", with it off " << us(v.off_ns) << ")\n";
    }
    size_t w = 6;
    for (const auto& t : r.confirmed) w = std::max(w, t.label.size());
    auto pad = [](std::string t, size_t n, bool right) {
        const std::string fill(t.size() < n ? n - t.size() : 0, ' ');
        return right ? fill + t : t + fill;
    };
    out << "confirmed   " << pad("config", w, false) << "  " << pad("full sim", 11, true) << "  " << pad("estimate", 11, true)
        << "  " << pad("90% under the joint samples", 27, false) << "  best in  binding\n";
    for (const auto& t : r.confirmed)
        out << "            " << pad(t.label, w, false) << "  " << pad(us(t.latency_ns), 11, true) << "  "
            << pad(us(t.estimate_ns), 11, true) << "  " << pad("[" + us(t.p5_ns) + ", " + us(t.p95_ns) + "]", 27, false)
            << "  " << pad(percent(t.best_share), 7, true) << "  " << t.binding << (t.own ? "  (the kernel's choice)" : "")
            << "\n";
}

std::string tune_html(const TuneReport& r) {
    std::ostringstream h;
    const TunedConfig& u = used(r);
    h << "<!DOCTYPE html><html><head><meta charset='utf-8'><title>bnsim tune: " << html_escape(r.config) << "</title>"
      << "<style>body{font-family:sans-serif;margin:2em;max-width:70em}table{border-collapse:collapse}"
         "td,th{padding:.25em .7em;border-bottom:1px solid #ddd;text-align:right}td:first-child,th:first-child{text-align:left}"
         "tr.use td{font-weight:bold}.bar{background:#4c78a8;height:.8em;display:inline-block}</style></head><body>";
    h << "<h1>bnsim tune</h1><p>" << html_escape(r.config) << " (" << html_escape(r.kernel) << " on "
      << html_escape(r.hardware_file) << "): " << r.screened << " configs screened by estimate, " << r.infeasible
      << " do not fit, " << r.confirmed.size() << " confirmed in full simulation, " << r.samples
      << " joint samples of " << r.sampled.size() << " estimated parameters.</p>";
    h << "<h2>Use " << html_escape(u.label) << (u.own ? " (the kernel's own choice)" : "") << "</h2>";
    h << "<p>" << us(u.latency_ns) << "; 90% in [" << us(r.band_p5_ns) << ", " << us(r.band_p95_ns)
      << "] with the model's own " << short_number(r.model_error_pct) << "%; bound by " << html_escape(u.binding) << " ("
      << html_escape(u.phases) << ").</p><p>" << html_escape(r.reason) << ". The kernel's choice is within "
      << short_number(r.tie_pct) << "% of the best in " << percent(r.choice_best_probability)
      << " of the joint samples; most often best: " << html_escape(r.best_most_often) << ".</p>";
    for (const auto& v : r.on_off)
        if (std::isfinite(v.saves_ns()))
            h << "<p>" << html_escape(axis_field(v.key)) << ": the best with it on " << us(v.on_ns) << ", with it off "
              << us(v.off_ns) << ".</p>";
    h << "<table><tr><th>config</th><th>full simulation (us)</th><th>estimate (us)</th><th>p5 (us)</th><th>p50 (us)</th>"
         "<th>p95 (us)</th><th>best in (% of samples)</th><th>binding</th></tr>";
    for (const auto& t : r.confirmed) {
        h << "<tr" << (&t == &u ? " class='use'" : "") << "><td>" << html_escape(t.label) << (t.own ? " (kernel's choice)" : "")
          << "</td><td>" << fixed_decimals(t.latency_ns / 1000, 2) << "</td><td>" << fixed_decimals(t.estimate_ns / 1000, 2)
          << "</td><td>" << fixed_decimals(t.p5_ns / 1000, 2) << "</td><td>" << fixed_decimals(t.p50_ns / 1000, 2)
          << "</td><td>" << fixed_decimals(t.p95_ns / 1000, 2) << "</td><td>" << fixed_decimals(t.best_share * 100, 0)
          << " <span class='bar' style='width:" << fixed_decimals(t.best_share * 6, 2) << "em'></span></td><td>"
          << html_escape(t.binding) << "</td></tr>";
    }
    h << "</table><p>" << html_escape(tune_json(r)["method"].get<std::string>()) << ".</p></body></html>\n";
    return h.str();
}

}  // namespace bnsim
