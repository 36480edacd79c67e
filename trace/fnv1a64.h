#pragma once
// FNV-1a, 64 bits: tiny, stable across platforms and builds, enough to tell texts apart (a
// config's provenance, a cached trace's key and files, a trace image's checksum); not a defence
// against someone forging a collision.
#include <cstdint>
#include <string_view>

namespace bnsim {

inline uint64_t fnv1a64(std::string_view bytes, uint64_t h = 0xcbf29ce484222325ull) {
    for (unsigned char c : bytes) {
        h ^= c;
        h *= 0x100000001b3ull;
    }
    return h;
}

}  // namespace bnsim
