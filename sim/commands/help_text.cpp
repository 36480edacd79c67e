// Help that teaches: every `bnsim CMD --help` names what each argument is (FILE, DIR,
// KEY=VALUE, ...) and ends with an example that runs as written from the repository root. Kept
// in one table so the commands' help reads alike.
#include <map>

#include "sim/commands/command.h"

namespace bnsim {

namespace {

// Argument kinds by option name (positionals by their name).
const std::map<std::string, std::string>& type_names() {
    static const std::map<std::string, std::string> t{
        {"config", "CONFIG"},        {"sweep", "SWEEP.yaml"},      {"measured", "FILE|DIR"},
        {"--set", "KEY=VALUE"},      {"--against", "CONFIG"},      {"--out", "DIR"},
        {"--dump", "FILE"},          {"--timeline", "FILE"},       {"--profile-out", "DIR"},
        {"--inputs", "DIR"},         {"--outputs", "DIR"},         {"--save-inputs", "DIR"},
        {"--measurements", "FILE"},  {"--only", "PREFIX"},         {"--shard", "i/N"},
        {"--params", "NAME[=LO:HI]"}, {"--range", "NAME=LO:HI"},   {"--axis", "KEY=V1,V2,..."},
        {"--order", "timing|sequential|dataflow"}};
    return t;
}

const std::map<std::string, std::string>& examples() {
    static const std::map<std::string, std::string> e{
        {"trace", "build/sim/bnsim trace configs/default.yaml --dump seed.jsonl"},
        {"run", "build/sim/bnsim run configs/default.yaml --set shape.C=128 --timeline run.json"},
        {"validate", "build/sim/bnsim validate configs/default.yaml --set shape.C=128"},
        {"calibrate", "build/sim/bnsim calibrate --only M4"},
        {"params", "build/sim/bnsim params configs/default.yaml"},
        {"sweep", "build/sim/bnsim sweep configs/sweeps/seed_grid.yaml -j 2 --out seed_grid.out"},
        {"merge", "build/sim/bnsim merge out/shard-0 out/shard-1 --out out/merged"},
        {"compare", "build/sim/bnsim compare configs/measured/m4_vector_add.csv"},
        {"fit", "build/sim/bnsim fit configs/measured/m4_vector_add.csv --params dma.min_queue_occupancy_ns"},
        {"sensitivity", "build/sim/bnsim sensitivity configs/default.yaml --suggest"},
        {"tune", "build/sim/bnsim tune configs/default.yaml --out tune.out"}};
    return e;
}

}  // namespace

std::string long_option_name(const std::string& names) {
    const auto comma = names.rfind(',');
    return comma == std::string::npos ? names : names.substr(comma + 1);
}

void add_teaching_help(CLI::App& app) {
    for (CLI::App* cmd : app.get_subcommands({})) {
        for (CLI::Option* opt : cmd->get_options()) {
            // "--out", or a positional's name
            const auto it = type_names().find(long_option_name(opt->get_name(false, true)));
            if (it != type_names().end()) opt->type_name(it->second);
        }
        if (cmd->get_name() == "fit")  // fit --out writes one preset file
            if (CLI::Option* out = cmd->get_option_no_throw("--out")) out->type_name("FILE");
        const auto ex = examples().find(cmd->get_name());
        if (ex != examples().end()) cmd->footer("\nExample:\n  " + ex->second);
    }
}

}  // namespace bnsim
