// PLACEHOLDER: replaced by the calibrate implementation.
#include "sim/commands/command.h"

namespace bnsim {

void add_calibrate_command(CLI::App& app) {
    auto* cmd = app.add_subcommand("calibrate", "(not implemented yet)");
    cmd->callback([]() { throw std::runtime_error("bnsim calibrate: not implemented yet"); });
}

}  // namespace bnsim
