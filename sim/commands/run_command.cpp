// PLACEHOLDER: replaced by the run implementation.
#include "sim/commands/command.h"

namespace bnsim {

void add_run_command(CLI::App& app) {
    auto* cmd = app.add_subcommand("run", "(not implemented yet)");
    cmd->callback([]() { throw std::runtime_error("bnsim run: not implemented yet"); });
}

}  // namespace bnsim
