// libFuzzer target: the measured-runs CSV importer (compare, fit) on arbitrary bytes. Bad input
// must end in an ImportError (a ConfigError: exit 2 in bnsim); any other exception, a crash, a
// sanitizer report, a hang or a huge allocation is a finding.
#include "configfile/config_error.h"
#include "sim/measured/measured_runs.h"
#include "tests/fuzz/fuzz_input_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string path = bnsim::fuzz::input_file(data, size, ".csv");
    try {
        const bnsim::MeasuredSet s = bnsim::read_runs_csv(path);
        for (const auto& p : s.points) (void)bnsim::point_label(p);
    } catch (const bnsim::ConfigError&) {
    }
    return 0;
}
