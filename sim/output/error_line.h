#pragma once
// The one line bnsim ends with for an exception, and its exit status: 2 for bad input (a config,
// a usage, a kernel's refusal, an input too large for the machine, a file that cannot be used),
// 1 for anything else. main() prints it; a simulation child's failure reads the same.
#include <exception>
#include <string>

namespace bnsim {

struct ErrorLine {
    std::string text;  // "bnsim: config error: ..." (no newline)
    int exit_code = 1;
};

ErrorLine error_line(const std::exception_ptr& e);

}  // namespace bnsim
