#pragma once
// A sweep file: a base run config and the axes to vary (any dotted key of the run config or,
// as hardware.*, of the hardware preset), each a list or a range, combined as a cartesian grid,
// plus explicit points. Expanding it against the kernel's decisions gives the points to run:
// every combination of the other axes (a "context", e.g. a shape) also gets the kernel's own
// choice (its auto point), so each result can be compared with it.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sim/sweep/sweep_kernel.h"

namespace bnsim {

// "--set" pairs: dotted key -> value as YAML text.
using PointParams = std::vector<std::pair<std::string, std::string>>;

struct SweepSpec {
    std::string file;  // the sweep file as given
    std::string base;  // the base run config, relative to the sweep file's folder
    double timeout_s = 300;  // per point
    std::vector<std::pair<std::string, std::vector<std::string>>> grid;  // key -> values, in file order
    std::vector<PointParams> points;                                          // explicit points
    std::map<std::string, std::string> key_origin;  // key -> "FILE:LINE:COL: grid key", for messages
};

// A sweep of more points is refused before anything is planned: each point is a simulation, and
// past this a sweep is better several files (each still shardable). Planning 20,000 points takes
// well under a second (a few under ASan, whose fuzz budget is 10 s per input).
constexpr size_t kMaxSweepPoints = 20000;

struct SweepPoint {
    std::string id;  // stable: a hash of the sorted parameters
    PointParams params;   // in column order
    bool is_auto = false;
};

struct SweepPlan {
    std::string base;                  // path of the base run config
    std::vector<std::string> columns;  // every varied dotted key: context keys, then decision keys
    std::vector<SweepPoint> points;    // enumeration order; ids unique
};

// Throws ConfigError naming the file, line and key.
SweepSpec load_sweep_spec(const std::string& path);
SweepPlan expand_sweep(const SweepSpec& spec, const SweepKernel& kernel);

// 16 hex digits of FNV-1a over "key=value\n" for the sorted parameters.
std::string point_id(const PointParams& params);
// The parameters that are not the kernel's decisions: the point's context (e.g. its shape).
PointParams context_of(const PointParams& params, const SweepKernel& kernel);
// "shape.C=128 dtype=float32", or "base" for no parameters.
std::string params_label(const PointParams& params);

}  // namespace bnsim
