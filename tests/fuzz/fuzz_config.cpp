// libFuzzer target: the run config loader on arbitrary YAML. Bad input must end in a
// ConfigError or KernelError (exit 2 in bnsim); any other exception, a crash, a sanitizer
// report, a hang or a huge allocation is a finding.
#include "kernels/kernel_target.h"
#include "configfile/config_error.h"
#include "sim/config/run_config.h"
#include "tests/fuzz/fuzz_input_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string path = bnsim::fuzz::input_file(data, size, ".yaml");
    try {
        bnsim::load_run_config(path);
    } catch (const bnsim::ConfigError&) {
    } catch (const bnsim::KernelError&) {
    }
    return 0;
}
