#include "sim/config/host_limits.h"

#include <sched.h>
#include <sys/resource.h>

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

uint64_t usable_memory_bytes() {
    uint64_t bytes = mem_available_bytes();
    // A process address-space limit (ulimit -v) caps what this run can allocate whatever the
    // machine has free; half of it, as the program, its libraries and the allocator's slack take
    // their share of address space too.
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
        const uint64_t cap = uint64_t(rl.rlim_cur) / 2;
        bytes = bytes ? std::min(bytes, cap) : cap;
    }
    return bytes;
}

uint64_t simulable_instructions() {
    const uint64_t avail = usable_memory_bytes();
    return avail ? avail / kRunBytesPerInstruction : std::numeric_limits<uint64_t>::max();
}

std::string gib_text(uint64_t bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g GiB", double(bytes) / double(uint64_t(1) << 30));
    return buf;
}

}  // namespace bnsim
