#pragma once
// The grid of a kernel's decisions that sensitivity and tune rank: axes of dotted run-config keys
// with the values to try, their cartesian points as --set pairs, the kernel's own choice spelt as
// the points are, and the one tie rule every command uses for "best".
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "kernels/kernel_entry.h"
#include "kernels/kernel_summary.h"
#include "sim/config/run_config.h"

namespace bnsim {

struct GridAxis {
    std::string key;                  // dotted run-config key, e.g. memory.f_tile
    std::vector<std::string> values;  // YAML values
};

struct GridPoint {
    std::string label;                          // "f_tile=4096 interleave=7 direct_x_residency=true"
    Overrides sets;                             // the point as --set pairs
    std::map<std::string, std::string> values;  // axis key -> value
};

// The kernel's decisions over their legal values for this config's inputs and target
// (KernelEntry::tune_axes, else its declared decision_axes), axes without values left out.
std::vector<GridAxis> decision_axes_of(const RunConfig& cfg);

// "KEY=V1,V2,..." -> axis; ConfigError if malformed.
GridAxis parse_axis(const std::string& spec);

// The cartesian grid of the axes, in axis order (the last axis varies fastest). Its size is
// checked before it is built: ConfigError naming `what` (e.g. "--axis") past `max_points`.
std::vector<GridPoint> grid_points(const std::vector<GridAxis>& axes, size_t max_points, const std::string& what);

// A point's label from its values, in axis order ("f_tile=4096 interleave=7 ..."); axes without
// a value are left out.
std::string grid_label(const std::vector<GridAxis>& axes, const std::map<std::string, std::string>& values);

// The kernel's decisions as its summary reports them, spelt as grid values are (booleans
// true/false): axis key -> value, for the axes the summary has a field for.
std::map<std::string, std::string> choice_values(const KernelSummary& s, const std::vector<GridAxis>& axes);

// The axis's last key segment ("memory.f_tile" -> "f_tile"): its kernel-summary field.
std::string axis_field(const std::string& key);

// Whether an axis is on/off (values true and false).
bool is_on_off(const GridAxis& a);

// The tie rule. Latencies within this percent of the best count as tied with it, and on a tie the
// kernel's own choice is the best (the user need not override it). sweep, sensitivity and tune
// all use it; sensitivity and tune take --tie to change it.
constexpr double kTiePct = 0.5;
// Written as a difference so that a latency exactly tie_pct over the best counts (100.5 of 100).
inline bool within_tie(double latency, double best, double tie_pct) { return (latency - best) * 100 <= best * tie_pct; }

}  // namespace bnsim
