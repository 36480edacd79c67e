// bnsim params: list every hardware parameter of a run config's resolved hardware (after
// --set), with unit, kind, allowed range and provenance.
#include <iostream>

#include "sim/commands/command.h"
#include "sim/config/run_config.h"
#include "sim/report/provenance.h"
#include "sim/report/params_report.h"

namespace bnsim {

void add_params_command(CLI::App& app) {
    auto* cmd = app.add_subcommand(
        "params", "list every hardware parameter of the resolved hardware: value, unit, kind, allowed range, "
                  "source or estimate with its uncertainty range");
    auto opts = std::make_shared<ConfigOptions>();
    opts->add_to(*cmd);
    cmd->callback([opts]() {
        const RunConfig cfg = load_run_config(opts->config, parse_overrides(opts->sets));
        const ParamsReport report = params_report(cfg.hw, cfg.hw_file);
        const Provenance prov = provenance_of(cfg);
        if (opts->json) {
            auto j = to_json(report);
            j["provenance"] = prov.json();
            std::cout << j.dump(2) << "\n";
        } else {
            print_params_table(report, std::cout);
            std::cout << prov.line() << "\n";
        }
    });
}

}  // namespace bnsim
