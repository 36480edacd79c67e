#include "sim/sweep/results_table.h"

namespace bnsim {

using json = nlohmann::ordered_json;

std::vector<std::string> phase_names(const json& run) {
    std::vector<std::string> names;
    if (run.is_object() && run.contains("phases"))
        for (const auto& p : run["phases"]) names.push_back(p["name"].get<std::string>());
    return names;
}

namespace {

std::string column_name(std::string phase) {
    for (auto& c : phase)
        if (c == ' ') c = '_';
    return phase;
}

std::string text(const json& v) {
    if (v.is_null()) return "";
    if (v.is_string()) return v.get<std::string>();
    return v.dump();
}

}  // namespace

std::string csv_header(const CsvLayout& l) {
    std::vector<std::string> h{"id"};
    h.insert(h.end(), l.columns.begin(), l.columns.end());
    h.push_back("status");
    h.insert(h.end(), l.summary_fields.begin(), l.summary_fields.end());
    for (const char* c : {"latency_ns", "kernel_ns", "binding", "binding_ns", "hbm_bytes_read", "hbm_bytes_written"})
        h.push_back(c);
    for (const auto& p : l.phases)
        for (const char* suffix : {"_ns", "_bound", "_bound_ns"}) h.push_back(column_name(p) + suffix);
    h.push_back("error");
    std::string s;
    for (const auto& c : h) s += (s.empty() ? "" : ",") + csv_field(c);
    return s + "\n";
}

std::string csv_row(const CsvLayout& l, const json& rec) {
    std::vector<std::string> f{rec["id"].get<std::string>()};
    const json& params = rec["params"];
    for (const auto& c : l.columns) f.push_back(params.contains(c) ? params[c].get<std::string>() : "");
    f.push_back(rec["status"].get<std::string>());
    const json& run = rec["run"];
    const bool ok = run.is_object();
    const json summary = ok ? kernel_summary_of(run) : json::object();
    for (const auto& s : l.summary_fields) f.push_back(summary.contains(s) ? text(summary[s]) : "");
    if (ok) {
        f.push_back(text(run["latency_ns"]));
        f.push_back(text(run["kernel_ns"]));
        const json& b = run["bounds"]["binding"];
        f.push_back(text(b["unit"]));
        f.push_back(text(b["bound_ns"]));
        f.push_back(text(run["hbm"]["bytes_read"]));
        f.push_back(text(run["hbm"]["bytes_written"]));
    } else {
        f.insert(f.end(), 6, "");
    }
    for (const auto& name : l.phases) {
        const json* ph = nullptr;
        if (ok)
            for (const auto& p : run["phases"])
                if (p["name"] == name) ph = &p;
        if (ph) {
            f.push_back(text((*ph)["duration_ns"]));
            f.push_back(text((*ph)["binding"]["unit"]));
            f.push_back(text((*ph)["binding"]["bound_ns"]));
        } else {
            f.insert(f.end(), 3, "");
        }
    }
    f.push_back(rec["error"].get<std::string>());
    std::string s;
    for (size_t i = 0; i < f.size(); ++i) s += (i ? "," : "") + csv_field(f[i]);
    return s + "\n";
}

}  // namespace bnsim
