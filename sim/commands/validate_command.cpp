// PLACEHOLDER: replaced by the validate implementation.
#include "sim/commands/command.h"

namespace bnsim {

void add_validate_command(CLI::App& app) {
    auto* cmd = app.add_subcommand("validate", "(not implemented yet)");
    cmd->callback([]() { throw std::runtime_error("bnsim validate: not implemented yet"); });
}

}  // namespace bnsim
