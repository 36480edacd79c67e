// libFuzzer target: the sweep file reader and its expansion into points (against the seed
// kernel's decisions) on arbitrary YAML. Bad input must end in a ConfigError (exit 2); the point
// count is checked before any point is made, so no input plans for long or allocates much.
#include "configfile/config_error.h"
#include "sim/sweep/sweep_kernel.h"
#include "sim/sweep/sweep_spec.h"
#include "tests/fuzz/fuzz_input_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const bnsim::SweepKernel kernel = bnsim::sweep_kernel("batch_norm_bwd");
    const std::string path = bnsim::fuzz::input_file(data, size, ".yaml");
    try {
        const bnsim::SweepSpec spec = bnsim::load_sweep_spec(path);
        const bnsim::SweepPlan plan = bnsim::expand_sweep(spec, kernel);
        for (const auto& p : plan.points) (void)bnsim::params_label(p.params);
    } catch (const bnsim::ConfigError&) {
    }
    return 0;
}
