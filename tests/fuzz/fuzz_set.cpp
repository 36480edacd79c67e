// libFuzzer target: `--set` parsing. Each input line is one --set argument, applied to
// configs/default.yaml (hardware.* lines to its preset). Bad input must end in a ConfigError or
// KernelError (exit 2 in bnsim); anything else is a finding.
#include <string>
#include <vector>

#include "kernels/kernel_target.h"
#include "configfile/config_error.h"
#include "sim/config/run_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::vector<std::string> sets;
    std::string line;
    for (size_t i = 0; i <= size; ++i) {
        if (i == size || data[i] == '\n') {
            sets.push_back(line);
            line.clear();
        } else {
            line += char(data[i]);
        }
    }
    try {
        bnsim::load_run_config(BNSIM_SOURCE_DIR "/configs/default.yaml", bnsim::parse_overrides(sets));
    } catch (const bnsim::ConfigError&) {
    } catch (const bnsim::KernelError&) {
    }
    return 0;
}
