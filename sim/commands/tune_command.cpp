// bnsim tune CONFIG [--json] [--out DIR]: the memory-config decision in one command, the config to
// use, how fast, how sure, against the kernel's own choice.
#include <iostream>
#include <optional>

#include "sim/commands/command.h"
#include "sim/commands/number_option.h"
#include "sim/config/run_config.h"
#include "sim/output/output_file.h"
#include "sim/report/provenance.h"
#include "sim/tune/tune.h"

namespace bnsim {

void add_tune_command(CLI::App& app) {
    auto* cmd = app.add_subcommand(
        "tune", "find the fastest memory config for a run config: every legal value of the kernel's decisions "
                "screened by estimate, the best confirmed in full simulation and checked under joint uncertainty");
    auto o = std::make_shared<TuneOptions>();
    auto json_out = std::make_shared<bool>(false);
    auto out_dir = std::make_shared<std::string>();
    auto axes = std::make_shared<std::vector<std::string>>();
    cmd->add_option("config", o->config, "run config (YAML)")->required();
    cmd->add_option("--set", o->sets, "override a config key: dotted.key=value (repeatable)");
    cmd->add_option("--axis", *axes, "replace or add a decision axis: KEY=V1,V2,... (repeatable; default: the kernel's)");
    add_int_option(*cmd, "--confirm", o->confirm, 1, 64, "the best this many of the screen are confirmed in full simulation");
    add_int_option(*cmd, "--samples", o->samples, 0, 1024, "joint samples of the estimated parameters (0: none)");
    add_real_option(*cmd, "--tie", o->tie_pct, kPercentRange, "the kernel's choice counts as best within this percent of the best");
    add_jobs_option(*cmd, "-j,--jobs", o->jobs, "threads and child processes run at once");
    add_real_option(*cmd, "--timeout", o->timeout_s, kTimeoutRange, "seconds one simulation may take");
    cmd->add_flag("--json", *json_out, "print one JSON object instead of the table");
    cmd->add_option("--out", *out_dir, "write tune.html and tune.json into this directory");
    cmd->callback([=]() {
        std::optional<OutputDir> out;  // checked before anything runs
        if (!out_dir->empty()) out.emplace("--out", *out_dir);
        for (const auto& a : *axes) o->axes.push_back(parse_axis(a));
        const TuneReport report = tune(*o);
        const Provenance prov = provenance_of(load_run_config(o->config, parse_overrides(o->sets)));
        auto j = tune_json(report);
        j["provenance"] = prov.json();
        if (out) {
            out->write("tune.html", [&](std::ostream& f) { f << tune_html(report); });
            out->write("tune.json", [&](std::ostream& f) { f << j.dump(2) << "\n"; });
        }
        if (*json_out) {
            std::cout << j.dump(2) << "\n";
        } else {
            print_tune(report, std::cout);
            std::cout << prov.line() << "\n";
        }
    });
}

}  // namespace bnsim
