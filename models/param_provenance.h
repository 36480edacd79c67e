#pragma once
// Where a hardware number comes from: a public source, or an estimate with the range its
// evidence spans. Read from the preset next to each value (configs/hw/<name>.yaml); models never
// read it, reports and sensitivity analyses do.
#include <optional>
#include <string>

namespace bnsim {

// The range an estimate's evidence spans, each end with the reason it is there.
struct UncertaintyRange {
    double lo = 0;
    double hi = 0;
    std::string lo_reason;
    std::string hi_reason;
};

struct ParamProvenance {
    std::string source;                        // public source; empty for an estimate
    bool estimate = false;                     // no public figure: the value is assumed or fitted
    std::optional<UncertaintyRange> uncertainty;  // set for every estimate
    std::string note;
    bool overridden = false;  // the value was replaced by --set (source/estimate describe the preset's)
};

}  // namespace bnsim
