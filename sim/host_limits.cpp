#include "sim/host_limits.h"

#include <sched.h>

#include <algorithm>
#include <cstdio>
#include <thread>
#include <fstream>
#include <limits>

namespace bnsim {

uint64_t mem_available_bytes() {
    std::ifstream f("/proc/meminfo");
    std::string key, unit;
    uint64_t kb = 0;
    while (f >> key >> kb >> unit)
        if (key == "MemAvailable:") return kb * 1024;
    return 0;
}

int available_cores() {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
    return std::max(1u, std::thread::hardware_concurrency());
}

uint64_t simulable_instructions() {
    const uint64_t avail = mem_available_bytes();
    return avail ? avail / kRunBytesPerInstruction : std::numeric_limits<uint64_t>::max();
}

std::string gib_text(uint64_t bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g GiB", double(bytes) / double(uint64_t(1) << 30));
    return buf;
}

}  // namespace bnsim
