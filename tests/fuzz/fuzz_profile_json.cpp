// libFuzzer target: profile JSON (neuron-profile --output-format json, Explorer JSON tables).
#include "tests/fuzz/fuzz_profile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return bnsim::fuzz::fuzz_profile(data, size, ".json"); }
