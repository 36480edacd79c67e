#include "sim/commands/number_option.h"

#include <cmath>

#include "configfile/number_text.h"
#include "sim/commands/command.h"
#include "sim/output/output_file.h"
#include "sim/config/host_limits.h"

namespace bnsim {

CLI::Option* add_real_option(CLI::App& cmd, const std::string& names, double& target, const RealRange& range,
                             const std::string& help) {
    const std::string name = long_option_name(names);
    const std::string expected = std::string(range.what) + " in " + range_text(range.lo, range.hi, range.lo_open);
    auto* opt = cmd.add_option_function<std::string>(
        names,
        [&target, range, name, expected](const std::string& s) {
            const auto v = parse_real(s);
            if (!v || *v > range.hi || *v < range.lo || (range.lo_open && *v == range.lo))
                throw UsageError(name + ": expected " + expected + ", got '" + s + "'");
            target = *v;
        },
        help);
    opt->type_name("NUMBER");
    if (target != 0 || !range.lo_open) opt->default_str(short_number(target));
    return opt;
}

CLI::Option* add_jobs_option(CLI::App& cmd, const std::string& names, int& target, const std::string& what) {
    target = std::min(available_cores(), kMaxJobs);
    return add_int_option(cmd, names, target, 1, kMaxJobs, what + " (default: this machine's cores)");
}

CLI::Option* add_int_option(CLI::App& cmd, const std::string& names, int& target, int lo, int hi,
                            const std::string& help) {
    const std::string name = long_option_name(names);
    auto* opt = cmd.add_option_function<std::string>(
        names,
        [&target, lo, hi, name](const std::string& s) {
            const auto v = parse_real(s);
            if (!v || *v != std::floor(*v) || *v < lo || *v > hi)
                throw UsageError(name + ": expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                 "], got '" + s + "'");
            target = int(*v);
        },
        help);
    opt->type_name("INT");
    if (target >= lo) opt->default_str(std::to_string(target));
    return opt;
}

}  // namespace bnsim
