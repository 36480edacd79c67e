#include "sim/sweep/sweep_record.h"

#include <set>

#include "configfile/config_error.h"

namespace bnsim {

using json = nlohmann::ordered_json;

SweepRecord failed_record(const SweepPoint& p, std::string status, std::string error) {
    SweepRecord r;
    r.id = p.id;
    r.params = p.params;
    r.is_auto = p.is_auto;
    r.status = std::move(status);
    r.error = std::move(error);
    return r;
}

json to_json(const SweepRecord& r) {
    json j;
    j["id"] = r.id;
    json params = json::object();
    for (const auto& [k, v] : r.params) params[k] = v;
    j["params"] = params;
    j["auto"] = r.is_auto;
    j["status"] = r.status;
    j["error"] = r.error;
    if (r.run) {
        json run = to_json(*r.run);
        if (!r.provenance.is_null()) run["provenance"] = r.provenance;
        j["run"] = run;
    } else {
        j["run"] = nullptr;
    }
    return j;
}

namespace {

[[noreturn]] void fail(const std::string& where, const std::string& what) {
    throw ConfigError(where + ": " + what + "; not a bnsim sweep record (was the folder edited?)");
}

const json& field(const json& o, const char* key, const std::string& where) {
    const auto it = o.find(key);
    if (it == o.end()) fail(where, std::string("expected a field '") + key + "'");
    return *it;
}

std::string text(const json& o, const char* key, const std::string& where) {
    const json& v = field(o, key, where);
    if (!v.is_string()) fail(where, std::string(key) + ": expected a string");
    return v.get<std::string>();
}

}  // namespace

SweepRecord sweep_record_from_json(const json& j, const std::string& where) {
    if (!j.is_object()) fail(where, "record: expected a JSON object");
    SweepRecord r;
    r.id = text(j, "id", where);
    r.status = text(j, "status", where);
    r.error = text(j, "error", where);
    const json& is_auto = field(j, "auto", where);
    if (!is_auto.is_boolean()) fail(where, "auto: expected true or false");
    r.is_auto = is_auto.get<bool>();
    const json& params = field(j, "params", where);
    if (!params.is_object()) fail(where, "params: expected an object");
    for (auto it = params.begin(); it != params.end(); ++it) {
        if (!it.value().is_string()) fail(where, "params." + it.key() + ": expected a string");
        r.params.emplace_back(it.key(), it.value().get<std::string>());
    }
    const json& run = field(j, "run", where);
    if (r.status != "ok") {
        if (!run.is_null()) fail(where, "run: expected null for a point that did not run");
        return r;
    }
    if (!run.is_object()) fail(where, "run: expected the point's run report");
    try {
        r.run = run_report_from_json(run, "run.");
    } catch (const RunReportError& e) {
        fail(where, e.what());
    }
    if (const auto p = run.find("provenance"); p != run.end()) {
        if (!p->is_object()) fail(where, "run.provenance: expected an object");
        r.provenance = *p;
    }
    return r;
}

bool operator==(const SweepRecord& a, const SweepRecord& b) { return to_json(a) == to_json(b); }

}  // namespace bnsim
