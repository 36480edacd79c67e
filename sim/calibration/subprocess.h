#pragma once
// Runs a program as a child process and captures what it prints. The calibrate command runs
// each measurement in its own process because SystemC elaborates once per process.
#include <string>
#include <vector>

namespace bnsim {

struct ChildResult {
    int exit_code = -1;  // -1: killed by a signal or could not start
    std::string out, err;
};

ChildResult run_child(const std::string& exe, const std::vector<std::string>& args);

// The running executable (from /proc/self/exe), so children are the same bnsim binary.
std::string self_executable();

}  // namespace bnsim
