#pragma once
// The declared table of hardware parameters: every scalar field of HwConfig, declared once with
// its dotted name (as in configs/hw/<name>.yaml and `--set hardware.<name>=...`), unit, kind and
// the range the loader allows. The loader, --set, calibration's hw_parameter rows, `bnsim params`
// and anything that sweeps, fits or perturbs a hardware number go through this table, so a
// parameter is spelled here and in the preset, nowhere else.
//
// The preset carries each value's provenance (a public source, or `estimate: true` with the
// uncertainty range its evidence spans); the loader stores it in HwConfig::provenance by name.
//
// Use:
//   const HwParam& p = hw_params().at("dma.min_queue_occupancy_ns");
//   double v = p.get(hw);          // current value
//   p.set(hw, 900);                // throws std::out_of_range outside p.min..p.max,
//                                  // std::invalid_argument for a non-integer integer / non-0/1 flag
//   for (const EstimatedParam& e : estimated_params(hw))   // every estimate with its range
//       sweep(e.param->name, e.range.lo, e.range.hi);
//
// The instruction cost rows (HwConfig::costs) are a table of their own, not scalar parameters.
#include <functional>
#include <string>
#include <vector>

#include "models/hw_config.h"

namespace bnsim {

enum class ParamKind { real, integer, boolean };
const char* param_kind_name(ParamKind k);  // "real" | "integer" | "boolean"

class HwParam {
public:
    using Getter = std::function<double(const HwConfig&)>;
    using Setter = std::function<void(HwConfig&, double)>;

    HwParam(std::string name, std::string unit, ParamKind kind, double min, double max, Getter get, Setter set);

    std::string name;  // dotted, e.g. "engines.dve.clock_ghz"
    std::string unit;  // "ns", "GHz", "B", "GB/s", "cycles", "count", "elements", "bits", "flag"
    ParamKind kind;
    double min;  // allowed range, inclusive (boolean: 0..1)
    double max;

    double get(const HwConfig& hw) const { return get_(hw); }
    void set(HwConfig& hw, double value) const;  // checks kind and allowed range
    // Why `value` is not allowed (kind or range), or empty if it is.
    std::string problem(double value) const;
    // "an integer in [1, 128]", "a number in [0, 1e+07]", "true or false".
    std::string expected() const;

private:
    Getter get_;
    Setter set_;
};

class ParamTable {
public:
    explicit ParamTable(std::vector<HwParam> params);
    const std::vector<HwParam>& all() const { return params_; }
    std::vector<HwParam>::const_iterator begin() const { return params_.begin(); }
    std::vector<HwParam>::const_iterator end() const { return params_.end(); }
    size_t size() const { return params_.size(); }

    const HwParam* find(const std::string& name) const;  // nullptr if not declared
    const HwParam& at(const std::string& name) const;    // throws std::out_of_range naming it
    // Whether `prefix` is a group of parameters ("dma", "engines.act"), not a parameter itself.
    bool is_group(const std::string& prefix) const;
    std::vector<std::string> names() const;  // declared names, in table order

private:
    std::vector<HwParam> params_;
};

// The table, in the preset's order.
const ParamTable& hw_params();

// An estimated parameter of a config, with the range its evidence spans.
struct EstimatedParam {
    const HwParam* param;
    double value;
    UncertaintyRange range;
};
// Every parameter the config marks `estimate: true`, in table order.
std::vector<EstimatedParam> estimated_params(const HwConfig& hw);

}  // namespace bnsim
