// prepare_short_lived_heap (first thing in bnsim run): blocks of every size still
// allocate and hold their data after it, and where the kernel offers transparent huge pages on
// request the heap's reserve is marked for them (VmFlags "hg" in /proc/self/smaps).
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cctype>
#include <fstream>
#include <string>
#include <vector>

#include "sim/runner/short_lived_heap.h"
#include "sim/runner/under_asan.h"
#include "tests/test_util.h"

namespace {

// Runs body in a forked child and returns its exit status (-1 if it did not exit normally).
template <class Body>
int status_of_child_heap_run(Body body) {
    const pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) _exit(body());
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool thp_offered_on_request() {
    std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string s;
    std::getline(f, s);
    return s.find("[madvise]") != std::string::npos || s.find("[always]") != std::string::npos;
}

}  // namespace

TEST_CASE("short-lived heap: after prepare_short_lived_heap blocks of every size allocate, hold their data and free") {
    const int status = status_of_child_heap_run([] {
        bnsim::prepare_short_lived_heap();
        // Small, past glibc's default mmap threshold, a few huge pages, past its largest mmap
        // threshold (32 MiB: a block malloc would otherwise map), past the 256 MiB reserve.
        for (size_t n : {size_t(16), size_t(4096), size_t(200000), size_t(3) << 20, size_t(40) << 20, size_t(272) << 20}) {
            std::vector<unsigned char> v(n);
            for (size_t i = 0; i < n; ++i) v[i] = static_cast<unsigned char>(i * 7 + n);
            for (size_t i = 0; i < n; ++i)
                if (v[i] != static_cast<unsigned char>(i * 7 + n)) return 1;
        }
        return 0;
    });
    CHECK(status == 0);
}

TEST_CASE("short-lived heap: the heap is marked for transparent huge pages where the kernel offers them") {
    if (BNSIM_UNDER_ASAN || !thp_offered_on_request()) {
        bnsim::test::skip_test("no transparent huge pages on request here (or ASan's allocator): nothing to check");
    }
    const int status = status_of_child_heap_run([] {
        bnsim::prepare_short_lived_heap();
        std::ifstream smaps("/proc/self/smaps");
        bool in_heap = false;
        for (std::string line; std::getline(smaps, line);) {
            // A mapping's header starts "start-end perms ..."; its fields ("Size:", ...) follow.
            const size_t dash = line.find('-'), space = line.find(' ');
            if (dash != std::string::npos && dash < space && std::isxdigit(static_cast<unsigned char>(line[0])))
                in_heap = line.find("[heap]") != std::string::npos;
            if (in_heap && line.rfind("VmFlags:", 0) == 0 && line.find(" hg") != std::string::npos) return 0;
        }
        return 1;
    });
    CHECK(status == 0);
}
