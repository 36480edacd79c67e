#pragma once
// One sweep point's result, a line of results.jsonl: the point (id, parameters, whether it is the
// kernel's own choice), how it ended, and when it ran, its typed run report. The sweep's tables,
// summary and report read these fields; the JSON is written and read back only here.
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/report/run_report.h"
#include "sim/sweep/sweep_spec.h"

namespace bnsim {

struct SweepRecord {
    std::string id;
    PointParams params;  // in the order the point lists them
    bool is_auto = false;
    // ok, infeasible (the kernel refuses the inputs or the memory config), config_error,
    // deadlock (the trace cannot finish), error; and, decided by the parent, crashed and timeout.
    std::string status;
    std::string error;
    std::optional<RunReport> run;       // exactly when ok
    nlohmann::ordered_json provenance;  // the run's, as `bnsim run --json` ends with it

    bool ok() const { return run.has_value(); }
    double latency_ns() const { return run->latency_ns; }
};

// A point that did not run (status and error; no report).
SweepRecord failed_record(const SweepPoint& p, std::string status, std::string error);

// The results.jsonl line's object: {"id", "params", "auto", "status", "error", "run"}, where run is
// `bnsim run --json`'s object (provenance included) or null.
nlohmann::ordered_json to_json(const SweepRecord& r);
// Reads one back; throws ConfigError naming `where` ("FILE:LINE") and the field.
SweepRecord sweep_record_from_json(const nlohmann::ordered_json& j, const std::string& where);

bool operator==(const SweepRecord& a, const SweepRecord& b);  // the same line
inline bool operator!=(const SweepRecord& a, const SweepRecord& b) { return !(a == b); }

using Records = std::map<std::string, SweepRecord>;  // by point id

}  // namespace bnsim
