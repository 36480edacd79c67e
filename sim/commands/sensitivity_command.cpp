// bnsim sensitivity CONFIG [--json] [--out DIR] [--suggest]: which uncertain hardware parameter
// moves the latency, the binding units, or the memory-config decision, and what to measure to
// pin it.
#include <iostream>
#include <optional>

#include "sim/commands/command.h"
#include "sim/commands/number_option.h"
#include "sim/output/output_file.h"
#include "sim/config/run_config.h"
#include "sim/report/provenance.h"
#include "sim/sensitivity/sensitivity.h"

namespace bnsim {

void add_sensitivity_command(CLI::App& app) {
    auto* cmd = app.add_subcommand(
        "sensitivity", "run the config at both ends of every estimated hardware parameter's range: latency, "
                       "binding units, and whether the kernel's memory choice survives against an explicit grid");
    auto o = std::make_shared<SensitivityOptions>();
    auto json_out = std::make_shared<bool>(false);
    auto suggest = std::make_shared<bool>(false);
    auto out_dir = std::make_shared<std::string>();
    auto axes = std::make_shared<std::vector<std::string>>();
    cmd->add_option("config", o->config, "run config (YAML)")->required();
    cmd->add_option("--set", o->sets, "override a config key: dotted.key=value (repeatable)");
    cmd->add_option("--range", o->ranges, "replace an uncertain parameter's range or add one: NAME=LO:HI (repeatable)");
    cmd->add_option("--axis", *axes, "grid axis KEY=V1,V2,... (repeatable; default: the kernel's decision axes)");
    add_real_option(*cmd, "--threshold", o->threshold_pct, kPercentRange, "a parameter 'moves the latency' above this percent");
    add_real_option(*cmd, "--tie", o->tie_pct, kPercentRange,
                    "the kernel's choice counts as best within this percent of the best grid config");
    add_jobs_option(*cmd, "-j,--jobs", o->jobs, "child processes run at once");
    add_real_option(*cmd, "--timeout", o->timeout_s, kTimeoutRange, "seconds one simulation may take");
    cmd->add_flag("--json", *json_out, "print one JSON object instead of the table");
    cmd->add_flag("--suggest", *suggest, "list the measurements that would pin the parameters that matter, in priority order");
    cmd->add_option("--out", *out_dir, "write sensitivity.html (tornado chart) and sensitivity.json into this directory");
    cmd->callback([=]() {
        std::optional<OutputDir> out;  // checked before anything runs
        if (!out_dir->empty()) out.emplace("--out", *out_dir);
        for (const auto& a : *axes) o->grid.push_back(parse_axis(a));
        SensitivityReport report = sensitivity(*o);
        if (*suggest) report.suggest = suggest_measurements(report);
        const Provenance prov = provenance_of(load_run_config(o->config, parse_overrides(o->sets)));
        nlohmann::ordered_json j = to_json(report);
        j["provenance"] = prov.json();
        if (out) {
            out->write("sensitivity.html", [&](std::ostream& f) { f << sensitivity_html(report); });
            out->write("sensitivity.json", [&](std::ostream& f) { f << j.dump(2) << "\n"; });
        }
        if (*json_out) {
            std::cout << j.dump(2) << "\n";
        } else {
            print_sensitivity(report, std::cout);
            std::cout << prov.line() << "\n";
        }
    });
}

}  // namespace bnsim
