// libFuzzer target: the latency-table importer (nki.benchmark / neuron-bench text: `run:` blocks
// of `pNN: VALUE UNIT`) on arbitrary bytes. Bad input must end in a ConfigError (exit 2).
#include "configfile/config_error.h"
#include "sim/measured/measured_runs.h"
#include "tests/fuzz/fuzz_input_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string path = bnsim::fuzz::input_file(data, size, ".txt");
    try {
        bnsim::read_latency_table(path);
    } catch (const bnsim::ConfigError&) {
    }
    return 0;
}
