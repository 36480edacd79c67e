#include "sim/sweep/sweep_report_html.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <ostream>
#include <set>
#include <sstream>

#include "sim/decision/decision_grid.h"
#include "sim/report/chart_page.h"
#include "sim/report/decimal_text.h"
#include "sim/report/html_text.h"
#include "sim/sweep/sweep_summary.h"

namespace bnsim {

using json = nlohmann::ordered_json;

namespace {

std::string num(double v, int prec = 1) { return fixed_decimals(v, prec); }

std::string us(double ns) { return num(ns / 1000.0, 1); }

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
    std::map<std::string, std::string> auto_v;

    // The best is the summary's (on a tie the kernel's own choice); every other point within the
    // tie rule of the fastest (lo) is marked as tied with it.
    std::map<std::string, std::string> best_v;  // the best's decisions

    Charts(const SweepKernel& kernel, const ContextGroup& group, const ContextSummary& summary, std::ostream& out)
        : k(kernel), g(group), o(out) {
        for (const auto& a : k.decision_axes) (a.kind == "boolean" ? bools : ints).push_back(&a);
        bool first = true;
        for (const SweepRecord* r : g.records)
            if (r->ok()) {
                const double l = r->latency_ns();
                lo = first ? l : std::min(lo, l);
                hi = first ? l : std::max(hi, l);
                first = false;
            }
        if (g.auto_record && g.auto_record->ok()) auto_v = decision_values(*g.auto_record, k);
        if (summary.best)
            for (const SweepRecord* r : g.records)
                if (r->id == summary.best->id) best_v = decision_values(*r, k);
    }
    // "best", "tied" or "" for a point.
    std::string mark(const SweepRecord& r) const {
        if (!r.ok()) return "";
        if (!best_v.empty() && decision_values(r, k) == best_v) return "best";  // the auto point's twin too
        return within_tie(r.latency_ns(), lo, kTiePct) ? "tied" : "";
    }
    std::string decisions_title(const std::map<std::string, std::string>& combo) const {
        return short_name(ints[1]->key) + " x " + short_name(ints[0]->key) + (combo.empty() ? "" : ", " + combo_label(combo));
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
        json rows = json::array();
        bool any_tied = false;
        for (const std::string& y : ys) {
            json row = json::array();
            for (const std::string& x : xs) {
                json c{{"value", nullptr}, {"text", ""}, {"tip", ""}, {"mark", ""}, {"own", false}};
                const std::string where = short_name(ints[0]->key) + "=" + x + " " + short_name(ints[1]->key) + "=" + y + ": ";
                if (auto it = m.find({x, y}); it != m.end()) {
                    const SweepRecord& r = *it->second;
                    if (r.ok()) {
                        const double l = r.latency_ns();
                        c["value"] = l / 1000;
                        c["text"] = num(l / 1000.0, l < 1e7 ? 1 : 0);
                        c["tip"] = where + us(l) + " us, " + r.run->binding.unit + "-bound";
                        c["mark"] = mark(r);
                        any_tied |= c["mark"] == "tied";
                    } else {
                        c["text"] = r.status == "infeasible" ? "\u00d7" : "!";
                        c["tip"] = where + r.status + ": " + r.error.substr(0, 300);
                    }
                }
                std::map<std::string, std::string> here = combo;
                here[ints[0]->key] = x;
                here[ints[1]->key] = y;
                c["own"] = !auto_v.empty() && matches(auto_v, here);
                row.push_back(c);
            }
            rows.push_back(row);
        }
        json spec{{"kind", "heatmap"},
                  {"title", "latency (us): " + decisions_title(combo)},
                  {"note", std::string("red frame: the kernel's own choice (auto); \u2605 best") +
                               (any_tied ? "; \u2606 tied with the best (within " + num(kTiePct, 1) + "%)" : "") +
                               "; \u00d7 infeasible; grey: no result"},
                  {"x", {{"title", short_name(ints[0]->key)}, {"labels", xs}}},
                  {"y", {{"title", short_name(ints[1]->key)}, {"labels", ys}}},
                  {"scale", {{"title", "latency (us)"}, {"min", lo / 1000}, {"max", hi / 1000}, {"log", hi > 2 * lo}}},
                  {"cells", rows}};
        write_chart(o, spec, std::max(420, 70 * int(xs.size()) + 200), std::max(260, 32 * int(ys.size()) + 120));
    }

    void lines(const std::map<std::string, std::string>& combo) {
        std::set<std::string> xset, yset;
        const auto m = cells(combo, xset, yset);
        if (m.empty() || hi <= 0) return;
        const auto xs = sorted_numeric(xset), ys = sorted_numeric(yset);
        json series = json::array();
        for (const std::string& y : ys) {
            json values = json::array(), tips = json::array();
            for (const std::string& x : xs) {
                auto it = m.find({x, y});
                const bool ok = it != m.end() && it->second->ok();
                values.push_back(ok ? json(it->second->latency_ns() / 1000) : json(nullptr));
                tips.push_back(ok ? short_name(ints[1]->key) + "=" + y + " " + short_name(ints[0]->key) + "=" + x + ": " +
                                        us(it->second->latency_ns()) + " us"
                                  : std::string());
            }
            series.push_back({{"label", short_name(ints[1]->key) + " " + y}, {"values", values}, {"tips", tips}});
        }
        // A log latency axis when small tiles are many times slower than the best.
        const bool log = hi > 2 * lo;
        json spec{{"kind", "lines"},
                  {"title", "latency vs " + short_name(ints[0]->key) + " per " + short_name(ints[1]->key) +
                                (combo.empty() ? "" : ", " + combo_label(combo))},
                  {"x", {{"title", short_name(ints[0]->key)}}},
                  {"y", {{"title", std::string("latency (us") + (log ? ", log scale)" : ")")}, {"log", log}, {"min", lo / 1000 / 1.1}, {"max", hi / 1000 * 1.1}}},
                  {"series", series}};
        spec["x"]["labels"] = xs;
        write_chart(o, spec, std::max(420, 70 * int(xs.size()) + 230), 320);
    }

    void phase_breakdown() {
        std::vector<const SweepRecord*> ok;
        for (const SweepRecord* r : g.records)
            if (r->ok()) ok.push_back(r);
        if (ok.empty()) return;
        std::stable_sort(ok.begin(), ok.end(), [](const SweepRecord* a, const SweepRecord* b) {
            return a->latency_ns() < b->latency_ns();
        });
        // Up to 3x the best latency, so the good configs are readable; longer rows are cut and
        // carry their latency with a mark.
        const double xmax = std::min(hi, 3 * lo) * 1.02;
        std::vector<std::string> units;
        json rows = json::array();
        for (const SweepRecord* rp : ok) {
            const SweepRecord& r = *rp;
            std::string label;
            const auto v = decision_values(r, k);
            for (const auto& a : k.decision_axes)
                if (v.count(a.key))
                    label += (label.empty() ? "" : " / ") + (a.kind == "boolean" ? (v.at(a.key) == "true" ? "on" : "off") : v.at(a.key));
            if (r.is_auto) label = "auto: " + label;
            const double launch = r.run->launch_ns, total = r.latency_ns();
            json spans = json::array();
            for (const PhaseReport& p : r.run->phases) {
                const std::string& unit = p.binding.unit;
                if (std::find(units.begin(), units.end(), unit) == units.end()) units.push_back(unit);
                const double s = p.start_ns + launch, e = p.end_ns + launch;
                const double bound = std::min(p.binding.bound_ns, e - s);
                spans.push_back({{"start", std::min(s, xmax) / 1000},
                                 {"end", std::min(e, xmax) / 1000},
                                 {"inner_end", std::min(s + bound, xmax) / 1000},
                                 {"key", unit},
                                 {"tip", p.name + ": " + us(e - s) + " us, " + unit + "-bound (bound " + us(p.binding.bound_ns) + " us)"}});
            }
            rows.push_back({{"label", label}, {"spans", spans}, {"end_text", std::string(total > xmax ? "\u25b8 " : "") + us(total)}});
        }
        std::sort(units.begin(), units.end());
        json keys = json::array();
        for (const auto& u : units) keys.push_back({{"key", u}, {"colour", unit_color(u)}});
        std::string cols;
        for (const auto& a : k.decision_axes) cols += (cols.empty() ? "" : " / ") + short_name(a.key);
        json spec{{"kind", "spans"},
                  {"title", "per-phase bound breakdown: each phase's window coloured by its binding unit"},
                  {"note", "rows: " + cols + ", fastest first; light: the phase's window, dark: that unit's bound; "
                                             "rows longer than 3x the best are cut (\u25b8)"},
                  {"x", {{"title", "time (us, launch included)"}, {"max", xmax / 1000}}},
                  {"rows", rows},
                  {"keys", keys}};
        write_chart(o, spec, 900, 110 + 14 * int(ok.size()));
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
        Charts c(k, g, summary.contexts.at(i), o);
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
    write_chart_scripts(o);
    o << "</body></html>\n";
}

}  // namespace bnsim
