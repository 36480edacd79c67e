#pragma once
// One sweep point, run in the process it is called in (the sweep calls it in a forked child,
// since SystemC elaborates once per process): load the base config with the point's
// parameters, generate, simulate, and return the point's record with its typed run report.
#include <map>
#include <string>

#include "sim/sweep/sweep_record.h"
#include "sim/sweep/sweep_spec.h"

namespace bnsim {

SweepRecord run_point(const std::string& base, const SweepPoint& p);

// Loads the run config with the point's parameters (no simulation); throws ConfigError.
void check_point_config(const std::string& base, const PointParams& params,
                        const std::map<std::string, std::string>& origins = {});

}  // namespace bnsim
