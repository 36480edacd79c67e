// bnsim run: schedule the kernel's trace, execute it on the SystemC models and report the
// predicted latency, per-phase bounds, unit utilization and HBM traffic.
#include <iostream>
#include <optional>

#include "sim/commands/command.h"
#include "sim/commands/output_file.h"
#include "sim/report/run_report.h"
#include "sim/report/timeline.h"
#include "sim/simulate.h"

namespace bnsim {

void add_run_command(CLI::App& app) {
    auto* cmd = app.add_subcommand("run", "simulate the kernel's timing and report latency, bounds and utilization");
    auto opts = std::make_shared<ConfigOptions>();
    auto timeline = std::make_shared<std::string>();
    opts->add_to(*cmd);
    auto* timeline_opt = cmd->add_option("--timeline", *timeline,
                                         "write a Chrome trace-event JSON timeline (open in ui.perfetto.dev; "
                                         "- for standard output, the text report then goes to standard error)");
    cmd->callback([opts, timeline, timeline_opt]() {
        std::optional<OutputFile> out;
        if (timeline_opt->count()) out.emplace("--timeline", *timeline, opts->json);
        RunConfig cfg = load_run_config(opts->config, parse_overrides(opts->sets));
        GeneratedKernel k = cfg.generate();
        SimOptions so;
        so.policy = cfg.schedule;
        SimResult r = simulate(cfg.hw, k.trace, so);
        if (out) out->write([&](std::ostream& o) { write_timeline(o, k.trace, cfg.hw, r); });
        auto report = run_report_json(cfg, k, r);
        if (opts->json)
            std::cout << report.dump(2) << "\n";
        else
            print_run_report(report, out && out->is_stdout() ? std::cerr : std::cout);
    });
}

}  // namespace bnsim
