#include "sim/sweep/results_table.h"

#include "sim/sweep/sweep_record.h"

namespace bnsim {

using json = nlohmann::ordered_json;

std::vector<std::string> phase_names(const RunReport& run) {
    std::vector<std::string> names;
    for (const auto& p : run.phases) names.push_back(p.name);
    return names;
}

namespace {

std::string column_name(std::string phase) {
    for (auto& c : phase)
        if (c == ' ') c = '_';
    return phase;
}

// A figure as the JSON writes it, so the CSV and results.jsonl agree digit for digit.
template <class T>
std::string text(const T& v) {
    return json(v).dump();
}
std::string text(const SummaryValue& v) {
    if (const std::string* s = std::get_if<std::string>(&v)) return *s;
    return to_json(v).dump();
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

std::string csv_row(const CsvLayout& l, const SweepRecord& rec) {
    std::vector<std::string> f{rec.id};
    for (const auto& c : l.columns) {
        std::string v;
        for (const auto& [k, x] : rec.params)
            if (k == c) v = x;
        f.push_back(v);
    }
    f.push_back(rec.status);
    for (const auto& s : l.summary_fields) {
        const SummaryValue* v = rec.ok() ? rec.run->kernel_summary.find(s) : nullptr;
        f.push_back(v ? text(*v) : "");
    }
    if (rec.ok()) {
        const RunReport& run = *rec.run;
        f.push_back(text(run.latency_ns));
        f.push_back(text(run.kernel_ns));
        f.push_back(run.binding.unit);
        f.push_back(text(run.binding.bound_ns));
        f.push_back(text(run.hbm.bytes_read));
        f.push_back(text(run.hbm.bytes_written));
    } else {
        f.insert(f.end(), 6, "");
    }
    for (const auto& name : l.phases) {
        const PhaseReport* ph = nullptr;
        if (rec.ok())
            for (const auto& p : rec.run->phases)
                if (p.name == name) ph = &p;
        if (ph) {
            f.push_back(text(ph->duration_ns));
            f.push_back(ph->binding.unit);
            f.push_back(text(ph->binding.bound_ns));
        } else {
            f.insert(f.end(), 3, "");
        }
    }
    f.push_back(rec.error);
    std::string s;
    for (size_t i = 0; i < f.size(); ++i) s += (i ? "," : "") + csv_field(f[i]);
    return s + "\n";
}

}  // namespace bnsim
