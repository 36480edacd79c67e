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

namespace {

void count(StatusCounts& c, const std::string& status) {
    for (auto& [st, n] : c)
        if (st == status) {
            ++n;
            return;
        }
    c.emplace_back(status, 1);
}

SweepChoice describe(const SweepRecord& r, const SweepKernel& k) {
    SweepChoice d;
    d.id = r.id;
    d.params = r.params;
    const auto v = decision_values(r, k);
    for (const auto& a : k.decision_axes)  // in the kernel's order
        if (v.count(a.key)) d.choice.emplace_back(a.key, v.at(a.key));
    d.latency_ns = r.latency_ns();
    d.binding = r.run->binding.unit;
    return d;
}

// What an on/off decision `a` is worth around the best point.
OnOffDecision on_off(const SweepKernel::Axis& a, const SweepRecord& best, const ContextGroup& g, const SweepKernel& k) {
    const auto best_v = decision_values(best, k);
    auto want = best_v;
    want[a.key] = best_v.at(a.key) == "true" ? "false" : "true";
    OnOffDecision f;
    f.key = a.key;
    f.at_best = best_v.at(a.key) == "true";
    const SweepRecord* best_on = nullptr;
    const SweepRecord* best_off = nullptr;
    for (const SweepRecord* r : g.records) {
        if (!r->ok()) continue;
        const auto v = decision_values(*r, k);
        if (!v.count(a.key)) continue;
        const SweepRecord*& b = v.at(a.key) == "true" ? best_on : best_off;
        if (!b || latency(*r) < latency(*b)) b = r;
        if (v == want && !f.flipped_latency_ns) {
            f.flipped_latency_ns = latency(*r);
            f.flip_costs_ns = std::round((latency(*r) - latency(best)) * 1000) / 1000;
        }
    }
    if (best_on && best_off) {
        f.best_on_ns = latency(*best_on);
        f.best_off_ns = latency(*best_off);
        f.saves_ns = std::round((latency(*best_off) - latency(*best_on)) * 1000) / 1000;
    }
    return f;
}

json counts_json(const StatusCounts& c) {
    json j = json::object();
    for (const auto& [st, n] : c) j[st] = n;
    return j;
}

json params_json(const PointParams& p) {
    json j = json::object();
    for (const auto& [k, v] : p) j[k] = v;
    return j;
}

json choice_json(const SweepChoice& c) {
    json d;
    d["id"] = c.id;
    d["params"] = params_json(c.params);
    d["choice"] = json::object();
    for (const auto& [k, v] : c.choice) d["choice"][k] = v;
    d["latency_ns"] = c.latency_ns;
    d["binding"] = c.binding;
    return d;
}

}  // namespace

SweepSummary sweep_summary(const json& meta, const Records& records) {
    const SweepKernel k = kernel_of_meta(meta);
    SweepSummary s;
    s.sweep = meta["sweep"].get<std::string>();
    s.base = meta["base"].get<std::string>();
    s.kernel = k.name;
    s.points = meta["points"].size();
    s.done = records.size();
    for (const auto& [id, r] : records) count(s.by_status, r.status);
    if (meta.contains("provenance")) s.provenance = meta["provenance"];
    for (const auto& g : group_by_context(meta, records)) {
        ContextSummary c;
        c.context = g.context;
        c.label = g.label;
        c.points = g.records.size();
        const SweepRecord* best = nullptr;
        for (const SweepRecord* r : g.records) {
            count(c.by_status, r->status);
            if (r->ok() && (!best || latency(*r) < latency(*best))) best = r;
        }
        // The tie rule (sim/decision/decision_grid.h): within kTiePct of the fastest, the kernel's
        // own choice is the best, so the user need not override it.
        const SweepRecord* own = g.auto_record && g.auto_record->ok() ? g.auto_record : nullptr;
        if (best && own && within_tie(latency(*own), latency(*best), kTiePct)) best = own;
        if (best) c.best = describe(*best, k);
        if (own) c.own = describe(*own, k);
        if (g.auto_record && !own) c.own_error = g.auto_record->error;
        if (best && own) c.speedup_over_own = std::round(latency(*own) / latency(*best) * 10000) / 10000;
        if (best) {
            const auto best_v = decision_values(*best, k);
            for (const auto& a : k.decision_axes)
                if (a.kind == "boolean" && best_v.count(a.key)) c.on_off_decisions.push_back(on_off(a, *best, g, k));
        }
        s.contexts.push_back(std::move(c));
    }
    return s;
}

json to_json(const SweepSummary& s) {
    json j;
    j["sweep"] = s.sweep;
    j["base"] = s.base;
    j["kernel"] = s.kernel;
    j["points"] = s.points;
    j["done"] = s.done;
    j["by_status"] = counts_json(s.by_status);
    if (!s.provenance.is_null()) j["provenance"] = s.provenance;
    json contexts = json::array();
    for (const auto& c : s.contexts) {
        json cj;
        cj["context"] = params_json(c.context);
        cj["label"] = c.label;
        cj["points"] = c.points;
        cj["by_status"] = counts_json(c.by_status);
        if (c.best) cj["best"] = choice_json(*c.best);
        if (c.own) cj["auto"] = choice_json(*c.own);
        if (c.own_error) cj["auto_error"] = *c.own_error;
        if (c.speedup_over_own) cj["speedup_over_auto"] = *c.speedup_over_own;
        if (c.best) {
            json flips = json::array();
            for (const auto& f : c.on_off_decisions) {
                json fj;
                fj["key"] = f.key;
                fj["at_best"] = f.at_best;
                if (f.flipped_latency_ns) {
                    fj["flipped_latency_ns"] = *f.flipped_latency_ns;
                    fj["flip_costs_ns"] = *f.flip_costs_ns;
                }
                if (f.saves_ns) {
                    fj["best_on_ns"] = *f.best_on_ns;
                    fj["best_off_ns"] = *f.best_off_ns;
                    fj["saves_ns"] = *f.saves_ns;
                }
                flips.push_back(fj);
            }
            cj["on_off_decisions"] = flips;
        }
        contexts.push_back(cj);
    }
    j["contexts"] = contexts;
    return j;
}

void print_sweep_summary(const SweepSummary& s, std::ostream& out) {
    out << "sweep " << s.sweep << ": " << s.done << " of " << s.points << " points";
    for (const auto& [st, n] : s.by_status) out << ", " << n << " " << st;
    out << "\n";
    auto choice = [](const SweepChoice& c) {
        std::string t;
        for (const auto& [k, v] : c.choice) t += (t.empty() ? "" : " ") + k.substr(k.rfind('.') + 1) + "=" + v;
        return t;
    };
    for (const auto& c : s.contexts) {
        out << "\n" << c.label << " (" << c.points << " points";
        for (const auto& [st, n] : c.by_status) out << ", " << n << " " << st;
        out << ")\n";
        if (!c.best) {
            out << "  no point succeeded\n";
            continue;
        }
        const SweepChoice& b = *c.best;
        out << "  best   " << us(b.latency_ns) << "  " << choice(b) << "  " << b.binding << "-bound"
            << (c.own && b.id == c.own->id ? "  (the kernel's own choice)" : "") << "\n";
        if (c.own) {
            char sp[64];
            std::snprintf(sp, sizeof sp, "%.3fx", *c.speedup_over_own);
            out << "  auto   " << us(c.own->latency_ns) << "  " << choice(*c.own) << "  best is " << sp << " faster\n";
        } else if (c.own_error) {
            out << "  auto   failed: " << *c.own_error << "\n";
        }
        for (const auto& f : c.on_off_decisions) {
            if (!f.saves_ns) continue;
            const std::string name = f.key.substr(f.key.rfind('.') + 1);
            const double saves = *f.saves_ns;
            out << "  " << name << " " << (saves >= 0 ? "on" : "off") << " saves " << us(std::fabs(saves))
                << " (best with it on " << us(*f.best_on_ns) << ", with it off " << us(*f.best_off_ns) << ")";
            if (f.flip_costs_ns) out << "; flipping it at the best config costs " << us(*f.flip_costs_ns);
            out << "\n";
        }
    }
    if (!s.provenance.is_null())
        out << "\nprovenance  bnsim " << s.provenance.value("bnsim_version", std::string()) << ", sweep "
            << s.provenance.value("config_hash", std::string()) << "\n";
}

}  // namespace bnsim
