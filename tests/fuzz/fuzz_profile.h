#pragma once
// The profile importer (compare PROFILE) on arbitrary bytes: it tells a profile JSON, a Neuron
// Explorer CSV table and summary-text apart by content, so the JSON and CSV targets share this
// body and differ in their seed corpora. Bad input must end in a ConfigError (exit 2).
#include "configfile/config_error.h"
#include "sim/measured/profile.h"
#include "tests/fuzz/fuzz_input_file.h"

namespace bnsim::fuzz {

inline int fuzz_profile(const uint8_t* data, size_t size, const char* suffix) {
    const std::string path = input_file(data, size, suffix);
    try {
        const Profile p = read_profile(path);
        for (const auto& [k, v] : p.summary) (void)p.number(k);
        (void)p.is_simulation();
    } catch (const ConfigError&) {
    }
    return 0;
}

}  // namespace bnsim::fuzz
