// bnsim validate's up-front memory estimate against the memory a validation really takes: the
// peak resident set of a child process, less that of a process that validates nothing.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "sim/runner/under_asan.h"
#include "tests/source_paths.h"

namespace {

struct ChildRun {
    std::string out;
    long peak_kib = 0;  // ru_maxrss of the child alone
    int status = -1;
};

ChildRun run_measured(std::vector<std::string> args) {
    args.insert(args.begin(), BNSIM_BINARY);
    char path[] = "/tmp/bnsim_memory_test_XXXXXX";
    const int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        std::vector<char*> argv;
        for (auto& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        dup2(fd, 1);
        const int null = open("/dev/null", O_WRONLY);
        dup2(null, 2);
        setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
        execv(argv[0], argv.data());
        _exit(127);
    }
    ChildRun r;
    struct rusage ru {};
    REQUIRE(wait4(pid, &r.status, 0, &ru) == pid);
    r.peak_kib = ru.ru_maxrss;
    std::ifstream f(path);
    std::stringstream s;
    s << f.rdbuf();
    r.out = s.str();
    close(fd);
    unlink(path);
    return r;
}


}  // namespace

namespace {

// The estimate validate reports against the peak RSS of the validation less that of a process
// that validates nothing.
void check_estimate(const std::vector<std::string>& extra, const char* mode) {
    const ChildRun idle = run_measured({"run", kConfigs + "calibration/m1_dma_copy.yaml"});
    REQUIRE(idle.status == 0);
    std::vector<std::string> args{"validate", kConfigs + "default.yaml", "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const ChildRun v = run_measured(args);
    REQUIRE(WIFEXITED(v.status));
    REQUIRE(WEXITSTATUS(v.status) == 0);
    const nlohmann::json j = nlohmann::json::parse(v.out);
    CHECK(j.at("memory_mode") == mode);
    const double estimate = j.at("memory_bytes_estimate").get<double>();
    const double measured = double(v.peak_kib - idle.peak_kib) * 1024.0;
    INFO("estimate " << estimate << " B, measured " << measured << " B (peak " << v.peak_kib << " KiB less "
                     << idle.peak_kib << " KiB)");
    CHECK(measured > 0.9 * estimate);
#if !BNSIM_UNDER_ASAN  // ASan's shadow memory and quarantine add to the peak: only the lower bound holds
    CHECK(measured < 1.1 * estimate);
#endif
}

}  // namespace

TEST_CASE("validate's memory estimate is within 10% of the measured peak memory on the seed shape") {
    check_estimate({}, "whole");
}

TEST_CASE("validate streams the seed shape under a memory limit, within 10% of its streamed estimate") {
    // 100 MB lies between the streamed estimate (about 68 MB: the scratch direct_x, one channel
    // tile's dx and the SBUF images) and the whole one (155 MB).
    check_estimate({"--set", "numerics.memory_limit_bytes=100000000"}, "streamed");
}
