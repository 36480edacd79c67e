#include "sim/sweep/sweep_summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>

#include "sim/decision/decision_grid.h"

namespace bnsim {

using json = nlohmann::ordered_json;

namespace {

std::string text(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

PointParams params_of(const json& j) {
    PointParams p;
    for (const auto& [k, v] : j.items()) p.emplace_back(k, v.get<std::string>());
    return p;
}

double latency(const SweepRecord& r) { return r.latency_ns(); }

json choice_of(const SweepRecord& r, const SweepKernel& k) {
    json c = json::object();
    const auto v = decision_values(r, k);
    for (const auto& a : k.decision_axes)  // in the kernel's order
        if (v.count(a.key)) c[a.key] = v.at(a.key);
    return c;
}

std::string us(double ns) {
    char b[32];
    std::snprintf(b, sizeof b, "%.2f us", ns / 1000.0);
    return b;
}

}  // namespace

std::map<std::string, std::string> decision_values(const SweepRecord& rec, const SweepKernel& k) {
    std::map<std::string, std::string> v;
    for (const auto& a : k.decision_axes) {
        if (const SummaryValue* s = rec.ok() ? rec.run->kernel_summary.find(a.field()) : nullptr) {
            v[a.key] = text(to_json(*s));
            continue;
        }
        for (const auto& [key, value] : rec.params)
            if (key == a.key) v[a.key] = value;
    }
    return v;
}

std::vector<ContextGroup> group_by_context(const json& meta, const Records& records) {
    const SweepKernel k = kernel_of_meta(meta);
    std::vector<ContextGroup> groups;
    std::map<std::string, size_t> index;  // context id -> group
    for (const auto& p : meta["points"]) {
        const PointParams ctx = context_of(params_of(p["params"]), k);
        const std::string cid = point_id(ctx);
        if (!index.count(cid)) {
            index[cid] = groups.size();
            groups.push_back({ctx, params_label(ctx), {}, nullptr});
        }
    }
    for (const auto& [id, r] : records) {
        const std::string cid = point_id(context_of(r.params, k));
        auto it = index.find(cid);
        if (it == index.end()) continue;
        ContextGroup& g = groups[it->second];
        g.records.push_back(&r);
        if (r.is_auto) g.auto_record = &r;
    }
    return groups;
}

json sweep_summary(const json& meta, const Records& records) {
    const SweepKernel k = kernel_of_meta(meta);
    json s;
    s["sweep"] = meta["sweep"];
    s["base"] = meta["base"];
    s["kernel"] = k.name;
    s["points"] = meta["points"].size();
    s["done"] = records.size();
    json by_status = json::object();
    for (const auto& [id, r] : records) by_status[r.status] = by_status.value(r.status, 0) + 1;
    s["by_status"] = by_status;
    if (meta.contains("provenance")) s["provenance"] = meta["provenance"];
    json contexts = json::array();
    for (const auto& g : group_by_context(meta, records)) {
        json c;
        c["context"] = json::object();
        for (const auto& [key, v] : g.context) c["context"][key] = v;
        c["label"] = g.label;
        c["points"] = g.records.size();
        json st = json::object();
        const SweepRecord* best = nullptr;
        for (const SweepRecord* r : g.records) {
            st[r->status] = st.value(r->status, 0) + 1;
            if (r->ok() && (!best || latency(*r) < latency(*best))) best = r;
        }
        // The tie rule (sim/decision/decision_grid.h): within kTiePct of the fastest, the kernel's
        // own choice is the best, so the user need not override it.
        if (best && g.auto_record && g.auto_record->ok() &&
            within_tie(latency(*g.auto_record), latency(*best), kTiePct))
            best = g.auto_record;
        c["by_status"] = st;
        auto describe = [&](const SweepRecord& r) {
            json d;
            d["id"] = r.id;
            d["params"] = json::object();
            for (const auto& [key, v] : r.params) d["params"][key] = v;
            d["choice"] = choice_of(r, k);
            d["latency_ns"] = r.latency_ns();
            d["binding"] = r.run->binding.unit;
            return d;
        };
        if (best) c["best"] = describe(*best);
        const SweepRecord* au = g.auto_record && g.auto_record->ok() ? g.auto_record : nullptr;
        if (au) c["auto"] = describe(*au);
        if (g.auto_record && !au) c["auto_error"] = g.auto_record->error;
        if (best && au) c["speedup_over_auto"] = std::round(latency(*au) / latency(*best) * 10000) / 10000;
        // What each on/off decision is worth: the best point with it on against the best with it
        // off (saves_ns, the figure tune and sensitivity also call "saves"), and what flipping it
        // at the best config alone would cost (flip_costs_ns).
        if (best) {
            json flips = json::array();
            const auto best_v = decision_values(*best, k);
            for (const auto& a : k.decision_axes) {
                if (a.kind != "boolean" || !best_v.count(a.key)) continue;
                auto want = best_v;
                want[a.key] = best_v.at(a.key) == "true" ? "false" : "true";
                json f;
                f["key"] = a.key;
                f["at_best"] = best_v.at(a.key) == "true";
                const SweepRecord* best_on = nullptr;
                const SweepRecord* best_off = nullptr;
                for (const SweepRecord* r : g.records) {
                    if (!r->ok()) continue;
                    const auto v = decision_values(*r, k);
                    if (!v.count(a.key)) continue;
                    const SweepRecord*& b = v.at(a.key) == "true" ? best_on : best_off;
                    if (!b || latency(*r) < latency(*b)) b = r;
                    if (v == want && !f.contains("flipped_latency_ns")) {
                        f["flipped_latency_ns"] = latency(*r);
                        f["flip_costs_ns"] = std::round((latency(*r) - latency(*best)) * 1000) / 1000;
                    }
                }
                if (best_on && best_off) {
                    f["best_on_ns"] = latency(*best_on);
                    f["best_off_ns"] = latency(*best_off);
                    f["saves_ns"] = std::round((latency(*best_off) - latency(*best_on)) * 1000) / 1000;
                }
                flips.push_back(f);
            }
            c["on_off_decisions"] = flips;
        }
        contexts.push_back(c);
    }
    s["contexts"] = contexts;
    return s;
}

void print_sweep_summary(const json& s, std::ostream& out) {
    out << "sweep " << text(s["sweep"]) << ": " << s["done"] << " of " << s["points"] << " points";
    for (const auto& [st, n] : s["by_status"].items()) out << ", " << n << " " << st;
    out << "\n";
    auto choice = [](const json& c) {
        std::string t;
        for (const auto& [k, v] : c.items()) t += (t.empty() ? "" : " ") + k.substr(k.rfind('.') + 1) + "=" + text(v);
        return t;
    };
    for (const auto& c : s["contexts"]) {
        out << "\n" << c["label"].get<std::string>() << " (" << c["points"] << " points";
        for (const auto& [st, n] : c["by_status"].items()) out << ", " << n << " " << st;
        out << ")\n";
        if (!c.contains("best")) {
            out << "  no point succeeded\n";
            continue;
        }
        const json& b = c["best"];
        out << "  best   " << us(b["latency_ns"].get<double>()) << "  " << choice(b["choice"]) << "  "
            << text(b["binding"]) << "-bound" << (b["id"] == c.value("auto", json::object()).value("id", json()) ? "  (the kernel's own choice)" : "") << "\n";
        if (c.contains("auto")) {
            char sp[64];
            std::snprintf(sp, sizeof sp, "%.3fx", c["speedup_over_auto"].get<double>());
            out << "  auto   " << us(c["auto"]["latency_ns"].get<double>()) << "  " << choice(c["auto"]["choice"])
                << "  best is " << sp << " faster\n";
        } else if (c.contains("auto_error")) {
            out << "  auto   failed: " << text(c["auto_error"]) << "\n";
        }
        for (const auto& f : c.value("on_off_decisions", json::array())) {
            const std::string name = f["key"].get<std::string>().substr(f["key"].get<std::string>().rfind('.') + 1);
            if (f.contains("saves_ns")) {
                const double saves = f["saves_ns"].get<double>();
                out << "  " << name << " " << (saves >= 0 ? "on" : "off") << " saves " << us(std::fabs(saves))
                    << " (best with it on " << us(f["best_on_ns"].get<double>()) << ", with it off "
                    << us(f["best_off_ns"].get<double>()) << ")";
                if (f.contains("flip_costs_ns"))
                    out << "; flipping it at the best config costs " << us(f["flip_costs_ns"].get<double>());
                out << "\n";
            }
        }
    }
    if (s.contains("provenance"))
        out << "\nprovenance  bnsim " << text(s["provenance"]["bnsim_version"]) << ", sweep "
            << text(s["provenance"]["config_hash"]) << "\n";
}

}  // namespace bnsim
