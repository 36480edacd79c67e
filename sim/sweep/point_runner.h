#pragma once
// One sweep point, run in the process it is called in (the sweep calls it in a forked child,
// since SystemC elaborates once per process): load the base config with the point's
// parameters, generate, simulate, and return the point's status, error and full run report.
#include <string>

#include <nlohmann/json.hpp>

#include "sim/sweep/sweep_spec.h"

namespace bnsim {

// Point statuses: ok, infeasible (the kernel refuses the inputs or the memory config),
// config_error, deadlock (the trace cannot finish), error; and, decided by the parent,
// crashed and timeout.
struct PointOutcome {
    std::string status;
    std::string error;
    nlohmann::ordered_json run;  // `bnsim run --json`'s object when ok
};

PointOutcome run_point(const std::string& base, const PointParams& params);

// Loads the run config with the point's parameters (no simulation); throws ConfigError.
void check_point_config(const std::string& base, const PointParams& params,
                        const std::map<std::string, std::string>& origins = {});

// A result row: {"id", "params", "status", "error", "run"}.
nlohmann::ordered_json point_record(const SweepPoint& p, const PointOutcome& o);

}  // namespace bnsim
