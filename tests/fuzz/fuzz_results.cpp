// libFuzzer target: a sweep folder's results.jsonl as --resume and merge read it, then the CSV
// rows and summary built from what it accepts (the checks must let nothing through that those
// read by key). Bad input must end in a ConfigError (exit 2).
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

#include "configfile/config_error.h"
#include "sim/sweep/results_dir.h"
#include "sim/sweep/results_table.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const std::string dir = "/tmp/bnsim_fuzz_results_" + std::to_string(getpid());
    static const bool made = mkdir(dir.c_str(), 0700) == 0 || errno == EEXIST;
    if (!made) __builtin_trap();
    FILE* f = std::fopen((dir + "/results.jsonl").c_str(), "wb");
    if (!f) __builtin_trap();
    if (size) std::fwrite(data, 1, size, f);
    std::fclose(f);
    try {
        const bnsim::Records records = bnsim::read_records(dir);
        bnsim::CsvLayout layout;
        layout.columns = {"memory.f_tile"};
        layout.summary_fields = {"f_tile"};
        for (const auto& [id, r] : records) {
            if (r.ok()) layout.phases = bnsim::phase_names(*r.run);
            (void)bnsim::csv_row(layout, r);
        }
    } catch (const bnsim::ConfigError&) {
    }
    return 0;
}
