#pragma once
// Runs a program as a child process and captures what it prints: the simulation runner's fresh
// bnsim processes (for a parent whose SystemC kernel is already elaborated) and compare's
// re-run of a command line.
#include <string>
#include <vector>

namespace bnsim {

struct ChildResult {
    int exit_code = -1;  // -1: killed by a signal or could not start
    bool timed_out = false;
    std::string out, err;
};

// Kills the child (and reports timed_out) if it runs longer than timeout_s (<= 0: no limit).
ChildResult run_child(const std::string& exe, const std::vector<std::string>& args, double timeout_s = 0);

// The running executable (from /proc/self/exe), so children are the same bnsim binary.
std::string self_executable();

}  // namespace bnsim
