// libFuzzer target: the .npy reader on arbitrary bytes. Bad input must end in an NpyError
// (exit 2 in bnsim); any other exception, a crash, a sanitizer report or an allocation of what a
// header claims before the file size is checked is a finding.
#include "numerics/npy.h"
#include "tests/fuzz/fuzz_input_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string path = bnsim::fuzz::input_file(data, size, ".npy");
    try {
        bnsim::num::read_npy(path);
    } catch (const bnsim::num::NpyError&) {
    }
    return 0;
}
