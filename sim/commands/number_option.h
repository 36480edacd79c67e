#pragma once
// Numeric command-line options, all parsed one way: the whole text must be a number ("10abc" and
// "nan" are not), finite, inside the option's range, and an integer option must be an integer.
// A bad value is a UsageError (exit 2) naming the option, its range and the text as the user
// typed it: "--timeout: expected seconds in (0, 86400], got '1e10'".
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "configfile/number_text.h"

namespace bnsim {

struct RealRange {
    double lo, hi;
    bool lo_open = false;  // (lo, hi] instead of [lo, hi]
    const char* what = "a number";  // "seconds", "a percentage"
};

// Limits shared by every command (one meaning everywhere).
constexpr double kMaxTimeoutS = 86400;  // a day per simulation: anything longer is a typo
constexpr int kMaxJobs = 256;
inline const RealRange kTimeoutRange{0, kMaxTimeoutS, true, "seconds"};
inline const RealRange kPercentRange{0, 100, false, "a percentage"};

CLI::Option* add_real_option(CLI::App& cmd, const std::string& names, double& target, const RealRange& range,
                             const std::string& help);
CLI::Option* add_int_option(CLI::App& cmd, const std::string& names, int& target, int lo, int hi,
                            const std::string& help);
// --jobs, with one default everywhere: this machine's cores.
CLI::Option* add_jobs_option(CLI::App& cmd, const std::string& names, int& target, const std::string& what);

}  // namespace bnsim
