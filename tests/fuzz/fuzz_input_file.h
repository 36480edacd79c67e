#pragma once
// The loaders under fuzz read files by path, as bnsim does: each input is written to one
// private temporary file per fuzzing process and loaded from there.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <unistd.h>

namespace bnsim::fuzz {

inline std::string input_file(const uint8_t* data, size_t size, const char* suffix) {
    static const std::string path = "/tmp/bnsim_fuzz_" + std::to_string(getpid()) + suffix;
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) __builtin_trap();
    if (size) std::fwrite(data, 1, size, f);
    std::fclose(f);
    return path;
}

}  // namespace bnsim::fuzz
