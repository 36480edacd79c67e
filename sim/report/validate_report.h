#pragma once
// What `bnsim validate` reports: per output the errors of the emulated kernel and of the
// independent oracle against the float64 reference, the tolerances and pass/fail, the hazards
// of the execution, and the kernel's own sections (shape, precision, mask checks...). Built as
// a struct, printed as JSON or text from it.
#include <iosfwd>
#include <string>

#include <nlohmann/json.hpp>

#include "kernels/kernel_numerics.h"
#include "sim/config/run_config.h"

namespace bnsim {

struct ValidateReport {
    std::string kernel, config, hardware;
    int lnc = 1;
    std::string order;  // how the instructions were ordered (timing simulation, sequential...)
    uint64_t memory_bytes_estimate = 0;
    std::string memory_mode = "whole";  // whole | streamed
    std::string memory;                 // the mode and its estimated peak, in words
    KernelValidation validation;  // the result, where the inputs came from, the kernel's sections
};

ValidateReport make_validate_report(const RunConfig& cfg, std::string order, uint64_t memory_bytes_estimate,
                                    KernelValidation v);
nlohmann::ordered_json validate_report_json(const ValidateReport& r);
void print_validate_report(const ValidateReport& r, std::ostream& out);

}  // namespace bnsim
