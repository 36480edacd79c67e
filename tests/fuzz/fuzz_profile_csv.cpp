// libFuzzer target: Neuron Explorer CSV tables and summary-text captures.
#include "tests/fuzz/fuzz_profile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return bnsim::fuzz::fuzz_profile(data, size, ".csv"); }
