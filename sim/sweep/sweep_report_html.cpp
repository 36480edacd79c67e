#include "sim/sweep/sweep_report_html.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <ostream>
#include <set>
#include <sstream>

#include "sim/report/decimal_text.h"
#include "sim/report/html_text.h"
#include "sim/sweep/sweep_summary.h"

namespace bnsim {

using json = nlohmann::ordered_json;

namespace {

std::string num(double v, int prec = 1) { return fixed_decimals(v, prec); }

std::string us(double ns) { return num(ns / 1000.0, 1); }

// Viridis, sampled: low latency dark blue, high yellow.
std::string heat_color(double t) {
    static const double stops[][3] = {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
    t = std::clamp(t, 0.0, 1.0) * 4;
    const int i = std::min(3, int(t));
    const double f = t - i;
    char b[16];
    std::snprintf(b, sizeof b, "#%02x%02x%02x", int(stops[i][0] + f * (stops[i + 1][0] - stops[i][0])),
                  int(stops[i][1] + f * (stops[i + 1][1] - stops[i][1])), int(stops[i][2] + f * (stops[i + 1][2] - stops[i][2])));
    return b;
}

std::string series_color(size_t i) {
    static const char* c[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
    return c[i % 10];
}

std::string unit_color(const std::string& u) {
    static const std::map<std::string, std::string> m = {{"dma", "#e4572e"}, {"hbm", "#8e44ad"}, {"dge", "#f3a712"},
                                                         {"act", "#29335c"}, {"dve", "#4f9dde"}, {"sync", "#888888"},
                                                         {"pool", "#2ca02c"}, {"pe", "#17becf"}};
    auto it = m.find(u);
    return it == m.end() ? "#444444" : it->second;
}

double as_number(const std::string& s) {
    try {
        return std::stod(s);
    } catch (...) {
        return 0;
    }
}

std::vector<std::string> sorted_numeric(std::set<std::string> vals) {
    std::vector<std::string> v(vals.begin(), vals.end());
    std::sort(v.begin(), v.end(), [](const std::string& a, const std::string& b) { return as_number(a) < as_number(b); });
    return v;
}

std::string short_name(const std::string& key) { return key.substr(key.rfind('.') + 1); }

struct Charts {
    const SweepKernel& k;
    const ContextGroup& g;
    std::ostream& o;
    std::vector<const SweepKernel::Axis*> ints, bools;
    double lo = 0, hi = 0;  // latency range of the context's ok points
    std::map<std::string, std::string> auto_v, best_v;

    Charts(const SweepKernel& kernel, const ContextGroup& group, std::ostream& out) : k(kernel), g(group), o(out) {
        for (const auto& a : k.decision_axes) (a.kind == "boolean" ? bools : ints).push_back(&a);
        bool first = true;
        const SweepRecord* best = nullptr;
        for (const SweepRecord* r : g.records)
            if (r->ok()) {
                const double l = r->latency_ns();
                lo = first ? l : std::min(lo, l);
                hi = first ? l : std::max(hi, l);
                if (first || l < best->latency_ns()) best = r;
                first = false;
            }
        if (g.auto_record && g.auto_record->ok()) auto_v = decision_values(*g.auto_record, k);
        if (best) best_v = decision_values(*best, k);
    }

    // Every combination of the on/off decisions: one heatmap and one line chart each.
    std::vector<std::map<std::string, std::string>> bool_combos() const {
        std::vector<std::map<std::string, std::string>> out{{}};
        for (const auto* a : bools) {
            std::vector<std::map<std::string, std::string>> next;
            for (const auto& c : out)
                for (const char* v : {"true", "false"}) {
                    auto d = c;
                    d[a->key] = v;
                    next.push_back(d);
                }
            out = next;
        }
        return out;
    }
    static std::string combo_label(const std::map<std::string, std::string>& c) {
        std::string s;
        for (const auto& [key, v] : c) s += (s.empty() ? "" : ", ") + short_name(key) + " " + (v == "true" ? "on" : "off");
        return s;
    }
    static bool matches(const std::map<std::string, std::string>& v, const std::map<std::string, std::string>& want) {
        for (const auto& [key, val] : want) {
            auto it = v.find(key);
            if (it == v.end() || it->second != val) return false;
        }
        return true;
    }
    // The grid cell records: non-auto points whose decisions match, keyed by the two integer axes.
    std::map<std::pair<std::string, std::string>, const SweepRecord*> cells(const std::map<std::string, std::string>& combo,
                                                                            std::set<std::string>& xs, std::set<std::string>& ys) const {
        std::map<std::pair<std::string, std::string>, const SweepRecord*> m;
        for (const SweepRecord* r : g.records) {
            if (r->is_auto) continue;
            const auto v = decision_values(*r, k);
            if (!matches(v, combo) || !v.count(ints[0]->key) || !v.count(ints[1]->key)) continue;
            const auto key = std::make_pair(v.at(ints[0]->key), v.at(ints[1]->key));
            xs.insert(key.first);
            ys.insert(key.second);
            if (!m.count(key) || r->ok()) m[key] = r;
        }
        return m;
    }

    void heatmap(const std::map<std::string, std::string>& combo) {
        std::set<std::string> xset, yset;
        const auto m = cells(combo, xset, yset);
        if (m.empty()) return;
        const auto xs = sorted_numeric(xset), ys = sorted_numeric(yset);
        const int cw = 64, ch = 30, left = 70, top = 30, bottom = 50;
        const int w = left + cw * int(xs.size()) + 20, h = top + ch * int(ys.size()) + bottom;
        o << "<figure><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w << "\" height=\"" << h
          << "\" viewBox=\"0 0 " << w << " " << h << "\" font-family=\"sans-serif\" font-size=\"11\">\n";
        o << "<text x=\"" << left << "\" y=\"16\" font-size=\"13\" font-weight=\"bold\">latency (us): "
          << html_escape(short_name(ints[1]->key)) << " x " << html_escape(short_name(ints[0]->key))
          << (combo.empty() ? "" : ", " + html_escape(combo_label(combo))) << "</text>\n";
        for (size_t yi = 0; yi < ys.size(); ++yi) {
            const int y = top + ch * int(ys.size() - 1 - yi);
            o << "<text x=\"" << left - 6 << "\" y=\"" << y + ch / 2 + 4 << "\" text-anchor=\"end\">" << html_escape(ys[yi]) << "</text>\n";
            for (size_t xi = 0; xi < xs.size(); ++xi) {
                const int x = left + cw * int(xi);
                auto it = m.find({xs[xi], ys[yi]});
                if (it == m.end()) continue;
                const SweepRecord& r = *it->second;
                const bool ok = r.ok();
                std::string title = html_escape(short_name(ints[0]->key) + "=" + xs[xi] + " " + short_name(ints[1]->key) + "=" + ys[yi] + ": ");
                if (ok) {
                    const double l = r.latency_ns();
                    const double t = hi > lo ? std::log(l / lo) / std::log(hi / lo) : 0;  // log: the spread is wide
                    o << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << cw - 1 << "\" height=\"" << ch - 1
                      << "\" fill=\"" << heat_color(t) << "\"><title>" << title << us(l) << " us, "
                      << html_escape(r.run->binding.unit) << "-bound</title></rect>\n";
                    o << "<text x=\"" << x + cw / 2 << "\" y=\"" << y + ch / 2 + 4 << "\" text-anchor=\"middle\" fill=\""
                      << (t > 0.6 ? "#000" : "#fff") << "\">" << num(l / 1000.0, l < 1e7 ? 1 : 0) << "</text>\n";
                } else {
                    o << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << cw - 1 << "\" height=\"" << ch - 1
                      << "\" fill=\"#dddddd\"><title>" << title << html_escape(r.status) << ": "
                      << html_escape(r.error.substr(0, 300)) << "</title></rect>\n";
                    o << "<text x=\"" << x + cw / 2 << "\" y=\"" << y + ch / 2 + 4
                      << "\" text-anchor=\"middle\" fill=\"#888\">" << (r.status == "infeasible" ? "&#215;" : "!") << "</text>\n";
                }
                std::map<std::string, std::string> here = combo;
                here[ints[0]->key] = xs[xi];
                here[ints[1]->key] = ys[yi];
                if (!auto_v.empty() && matches(auto_v, here))
                    o << "<rect x=\"" << x + 1 << "\" y=\"" << y + 1 << "\" width=\"" << cw - 3 << "\" height=\"" << ch - 3
                      << "\" fill=\"none\" stroke=\"#ff2d55\" stroke-width=\"3\"><title>the kernel's own choice (auto)</title></rect>\n";
                if (!best_v.empty() && matches(best_v, here))
                    o << "<text x=\"" << x + cw - 8 << "\" y=\"" << y + 11 << "\" text-anchor=\"middle\" fill=\"#ff2d55\" font-size=\"12\">&#9733;</text>\n";
            }
        }
        for (size_t xi = 0; xi < xs.size(); ++xi)
            o << "<text x=\"" << left + cw * int(xi) + cw / 2 << "\" y=\"" << top + ch * int(ys.size()) + 14
              << "\" text-anchor=\"middle\">" << html_escape(xs[xi]) << "</text>\n";
        o << "<text x=\"" << left + cw * int(xs.size()) / 2 << "\" y=\"" << h - 18 << "\" text-anchor=\"middle\">"
          << html_escape(short_name(ints[0]->key)) << "</text>\n";
        o << "<text x=\"14\" y=\"" << top + ch * int(ys.size()) / 2 << "\" transform=\"rotate(-90 14 "
          << top + ch * int(ys.size()) / 2 << ")\" text-anchor=\"middle\">" << html_escape(short_name(ints[1]->key)) << "</text>\n";
        o << "<text x=\"" << left << "\" y=\"" << h - 4 << "\" fill=\"#555\">red frame: the kernel's own choice (auto); "
          << "&#9733;: best; &#215;: infeasible</text>\n";
        o << "</svg></figure>\n";
    }

    void lines(const std::map<std::string, std::string>& combo) {
        std::set<std::string> xset, yset;
        const auto m = cells(combo, xset, yset);
        if (m.empty() || hi <= 0) return;
        const auto xs = sorted_numeric(xset), ys = sorted_numeric(yset);
        const int left = 70, top = 30, pw = std::max(240, 60 * int(xs.size())), ph = 220, legend = 110;
        const int w = left + pw + legend, h = top + ph + 45;
        // Log latency axis: small tiles can be ten times slower than the best.
        const double ymax = hi * 1.1, ymin = lo / 1.1;
        auto X = [&](size_t i) { return left + (xs.size() > 1 ? double(pw) * double(i) / double(xs.size() - 1) : pw / 2.0); };
        auto Y = [&](double ns) { return top + ph - std::log(ns / ymin) / std::log(ymax / ymin) * ph; };
        o << "<figure><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w << "\" height=\"" << h
          << "\" viewBox=\"0 0 " << w << " " << h << "\" font-family=\"sans-serif\" font-size=\"11\">\n";
        o << "<text x=\"" << left << "\" y=\"16\" font-size=\"13\" font-weight=\"bold\">latency (us, log) vs "
          << html_escape(short_name(ints[0]->key)) << " per " << html_escape(short_name(ints[1]->key))
          << (combo.empty() ? "" : ", " + html_escape(combo_label(combo))) << "</text>\n";
        o << "<rect x=\"" << left << "\" y=\"" << top << "\" width=\"" << pw << "\" height=\"" << ph
          << "\" fill=\"none\" stroke=\"#999\"/>\n";
        for (int t = 0; t <= 4; ++t) {
            const double v = ymin * std::pow(ymax / ymin, t / 4.0);
            o << "<line x1=\"" << left << "\" x2=\"" << left + pw << "\" y1=\"" << num(Y(v)) << "\" y2=\"" << num(Y(v))
              << "\" stroke=\"#eee\"/><text x=\"" << left - 6 << "\" y=\"" << num(Y(v) + 4) << "\" text-anchor=\"end\">"
              << us(v) << "</text>\n";
        }
        for (size_t i = 0; i < xs.size(); ++i)
            o << "<text x=\"" << num(X(i)) << "\" y=\"" << top + ph + 14 << "\" text-anchor=\"middle\">" << html_escape(xs[i]) << "</text>\n";
        o << "<text x=\"" << left + pw / 2 << "\" y=\"" << h - 8 << "\" text-anchor=\"middle\">" << html_escape(short_name(ints[0]->key))
          << "</text>\n";
        for (size_t s = 0; s < ys.size(); ++s) {
            std::string pts;
            for (size_t i = 0; i < xs.size(); ++i) {
                auto it = m.find({xs[i], ys[s]});
                if (it == m.end() || !it->second->ok()) continue;
                const double l = it->second->latency_ns();
                pts += num(X(i)) + "," + num(Y(l)) + " ";
                o << "<circle cx=\"" << num(X(i)) << "\" cy=\"" << num(Y(l)) << "\" r=\"3\" fill=\"" << series_color(s)
                  << "\"><title>" << html_escape(short_name(ints[1]->key) + "=" + ys[s] + " " + short_name(ints[0]->key) + "=" + xs[i])
                  << ": " << us(l) << " us</title></circle>\n";
            }
            if (!pts.empty())
                o << "<polyline points=\"" << pts << "\" fill=\"none\" stroke=\"" << series_color(s) << "\" stroke-width=\"1.5\"/>\n";
            o << "<rect x=\"" << left + pw + 14 << "\" y=\"" << top + 4 + 16 * int(s) << "\" width=\"10\" height=\"10\" fill=\""
              << series_color(s) << "\"/><text x=\"" << left + pw + 28 << "\" y=\"" << top + 13 + 16 * int(s) << "\">"
              << html_escape(short_name(ints[1]->key)) << " " << html_escape(ys[s]) << "</text>\n";
        }
        o << "</svg></figure>\n";
    }

    void phase_breakdown() {
        std::vector<const SweepRecord*> ok;
        for (const SweepRecord* r : g.records)
            if (r->ok()) ok.push_back(r);
        if (ok.empty()) return;
        std::stable_sort(ok.begin(), ok.end(), [](const SweepRecord* a, const SweepRecord* b) {
            return a->latency_ns() < b->latency_ns();
        });
        const int left = 190, top = 40, rh = 13, pw = 560;  // pw + 70: room for the latency labels
        const int h = top + rh * int(ok.size()) + 40, w = left + pw + 100;
        // Up to 3x the best latency, so the good configs are readable; longer bars are cut
        // and carry their latency.
        const double xmax = std::min(hi, 3 * lo) * 1.02;
        auto X = [&](double ns) { return left + std::min(ns, xmax) / xmax * pw; };
        std::set<std::string> units;
        o << "<figure><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w << "\" height=\"" << h
          << "\" viewBox=\"0 0 " << w << " " << h << "\" font-family=\"sans-serif\" font-size=\"10\">\n";
        o << "<text x=\"" << left << "\" y=\"16\" font-size=\"13\" font-weight=\"bold\">per-phase bound breakdown: "
          << "each phase's window coloured by its binding unit, dark = that unit's bound</text>\n";
        std::string cols;
        for (const auto& a : k.decision_axes) cols += (cols.empty() ? "" : " / ") + short_name(a.key);
        o << "<text x=\"" << left - 6 << "\" y=\"" << top - 6 << "\" text-anchor=\"end\" fill=\"#555\">" << html_escape(cols) << "</text>\n";
        for (size_t i = 0; i < ok.size(); ++i) {
            const SweepRecord& r = *ok[i];
            const int y = top + rh * int(i);
            std::string label;
            const auto v = decision_values(r, k);
            for (const auto& a : k.decision_axes)
                if (v.count(a.key))
                    label += (label.empty() ? "" : " / ") + (a.kind == "boolean" ? (v.at(a.key) == "true" ? "on" : "off") : v.at(a.key));
            if (r.is_auto) label = "auto: " + label;
            o << "<text x=\"" << left - 6 << "\" y=\"" << y + rh - 3 << "\" text-anchor=\"end\">" << html_escape(label) << "</text>\n";
            const double launch = r.run->launch_ns, total = r.latency_ns();
            o << "<text x=\"" << num(X(total) + 4) << "\" y=\"" << y + rh - 3 << "\" fill=\"#555\">"
              << (total > xmax ? "&#9656; " : "") << us(total) << "</text>\n";
            for (const PhaseReport& p : r.run->phases) {
                const std::string& unit = p.binding.unit;
                units.insert(unit);
                const double s = p.start_ns + launch, e = p.end_ns + launch;
                const double bound = std::min(p.binding.bound_ns, e - s);
                const std::string title =
                    html_escape(p.name + ": " + us(e - s) + " us, " + unit + "-bound (bound " + us(p.binding.bound_ns) + " us)");
                o << "<rect x=\"" << num(X(s)) << "\" y=\"" << y << "\" width=\"" << num(std::max(0.5, X(e) - X(s)))
                  << "\" height=\"" << rh - 2 << "\" fill=\"" << unit_color(unit) << "\" fill-opacity=\"0.35\"><title>" << title
                  << "</title></rect>\n";
                o << "<rect x=\"" << num(X(s)) << "\" y=\"" << y + 3 << "\" width=\"" << num(std::max(0.5, X(s + bound) - X(s)))
                  << "\" height=\"" << rh - 8 << "\" fill=\"" << unit_color(unit) << "\"><title>" << title << "</title></rect>\n";
            }
        }
        const int ay = top + rh * int(ok.size()) + 4;
        for (int t = 0; t <= 4; ++t) {
            const double v = xmax * t / 4;
            o << "<text x=\"" << num(X(v)) << "\" y=\"" << ay + 10 << "\" text-anchor=\"middle\">" << us(v) << "</text>\n";
        }
        o << "<text x=\"" << left + pw / 2 << "\" y=\"" << ay + 22 << "\" text-anchor=\"middle\">time (us, launch included)</text>\n";
        int lx = left;
        for (const auto& u : units) {
            o << "<rect x=\"" << lx << "\" y=\"22\" width=\"10\" height=\"10\" fill=\"" << unit_color(u) << "\"/><text x=\""
              << lx + 14 << "\" y=\"31\">" << html_escape(u) << "</text>\n";
            lx += 60;
        }
        o << "</svg></figure>\n";
    }
};

void summary_table(std::ostream& o, const ContextSummary& c) {
    o << "<table>";
    auto choice = [](const SweepChoice& ch) {
        std::string t;
        for (const auto& [k, v] : ch.choice) t += (t.empty() ? "" : ", ") + short_name(k) + " " + v;
        return t;
    };
    if (c.best)
        o << "<tr><th>best</th><td>" << us(c.best->latency_ns) << " us</td><td>" << html_escape(choice(*c.best))
          << "</td><td>" << html_escape(c.best->binding) << "-bound</td></tr>";
    if (c.own)
        o << "<tr><th>auto</th><td>" << us(c.own->latency_ns) << " us</td><td>" << html_escape(choice(*c.own))
          << "</td><td>best is " << num(*c.speedup_over_own, 3) << "x faster</td></tr>";
    for (const auto& f : c.on_off_decisions)
        if (f.saves_ns)
            o << "<tr><th>" << html_escape(short_name(f.key)) << "</th><td>" << us(std::fabs(*f.saves_ns))
              << " us</td><td colspan=\"2\">saved by " << (*f.saves_ns >= 0 ? "on" : "off")
              << " (the best with it on against the best with it off)</td></tr>";
    o << "<tr><th>points</th><td colspan=\"3\">";
    for (const auto& [st, n] : c.by_status) o << n << " " << html_escape(st) << " ";
    o << "</td></tr></table>\n";
}

}  // namespace

void write_sweep_report_html(std::ostream& o, const json& meta, const Records& records, const SweepSummary& summary) {
    const SweepKernel k = kernel_of_meta(meta);
    o << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>bnsim sweep: "
      << html_escape(meta["sweep"].get<std::string>()) << "</title>\n<style>\n"
      << "body{font-family:sans-serif;margin:24px;color:#222;max-width:1400px}\n"
      << "h2{border-top:1px solid #ccc;padding-top:12px}\nfigure{display:inline-block;margin:8px 16px 8px 0;vertical-align:top}\n"
      << "table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ddd;padding:3px 8px;text-align:left;font-size:13px}\n"
      << "th{background:#f4f4f4}.err{font-family:monospace;font-size:12px;white-space:pre-wrap}\n</style></head><body>\n";
    o << "<h1>bnsim sweep <code>" << html_escape(meta["sweep"].get<std::string>()) << "</code></h1>\n<p>kernel "
      << html_escape(k.name) << ", base config <code>" << html_escape(meta["base"].get<std::string>()) << "</code>, "
      << summary.done << " of " << summary.points << " points:";
    for (const auto& [st, n] : summary.by_status) o << " " << n << " " << html_escape(st);
    o << ".</p>\n";
    const auto groups = group_by_context(meta, records);
    for (size_t i = 0; i < groups.size(); ++i) {
        const ContextGroup& g = groups[i];
        o << "<section><h2>" << html_escape(g.label) << "</h2>\n";
        summary_table(o, summary.contexts.at(i));
        Charts c(k, g, o);
        if (c.ints.size() >= 2) {
            for (const auto& combo : c.bool_combos()) c.heatmap(combo);
            o << "<br>\n";
            for (const auto& combo : c.bool_combos()) c.lines(combo);
        }
        o << "<br>\n";
        c.phase_breakdown();
        std::vector<const SweepRecord*> failed;
        for (const SweepRecord* r : g.records)
            if (!r->ok() && r->status != "infeasible") failed.push_back(r);
        if (!failed.empty()) {
            o << "<h3>failed points</h3><table><tr><th>point</th><th>status</th><th>error</th></tr>";
            for (const SweepRecord* r : failed) {
                std::string p;
                for (const auto& [key, v] : r->params) p += key + "=" + v + " ";
                o << "<tr><td>" << html_escape(p) << "</td><td>" << html_escape(r->status) << "</td><td class=\"err\">"
                  << html_escape(r->error.substr(0, 2000)) << "</td></tr>";
            }
            o << "</table>\n";
        }
        o << "</section>\n";
    }
    o << "</body></html>\n";
}

}  // namespace bnsim
