#include "sim/config/host_limits.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <limits>
#include <thread>

namespace bnsim {

namespace {

uint64_t read_mem_available_bytes() {
    // A plain read: this runs before every trace is made (a fit makes thousands), and
    // /proc/meminfo is a page at most.
    char buf[8192];
    const int fd = ::open("/proc/meminfo", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    const ssize_t n = ::read(fd, buf, sizeof buf - 1);
    ::close(fd);
    if (n <= 0) return 0;
    buf[n] = '\0';
    const char* at = std::strstr(buf, "MemAvailable:");
    if (!at) return 0;
    unsigned long long kb = 0;
    if (std::sscanf(at, "MemAvailable: %llu kB", &kb) != 1) return 0;
    return uint64_t(kb) * 1024;
}

}  // namespace

uint64_t mem_available_bytes() {
    // Read again once it is a quarter of a second old: fresh enough for a limit taken with a
    // wide margin, and a batch of small simulations does not read the file for each.
    static std::atomic<int64_t> read_at{-1};  // steady-clock ms; -1: never
    static std::atomic<uint64_t> bytes{0};
    const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::steady_clock::now().time_since_epoch()).count();
    const int64_t last = read_at.load(std::memory_order_relaxed);
    if (last < 0 || now - last >= 250 || now < last) {
        bytes.store(read_mem_available_bytes(), std::memory_order_relaxed);
        read_at.store(now, std::memory_order_relaxed);
    }
    return bytes.load(std::memory_order_relaxed);
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
