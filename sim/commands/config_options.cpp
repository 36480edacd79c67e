#include "sim/commands/command.h"

namespace bnsim {

void ConfigOptions::add_to(CLI::App& cmd) {
    cmd.add_option("config", config, "run config (YAML), e.g. configs/default.yaml")->required();
    cmd.add_option("--set", sets, "override a config key: dotted.key=value (repeatable); "
                                  "hardware.* keys override the hardware preset");
    cmd.add_flag("--json", json, "print one JSON object instead of text");
}

}  // namespace bnsim
