#pragma once
// What `bnsim validate` reports: per output (dx, dgamma, dbeta) the errors of the emulated kernel
// and of the float32 oracle against the float64 reference, the tolerances and pass/fail, the ReLU
// mask flips, and the hazards of the execution.
#include <iosfwd>
#include <string>

#include <nlohmann/json.hpp>

#include "numerics/bn_validate.h"
#include "sim/config/run_config.h"

namespace bnsim {

struct ValidateContext {
    std::string order;         // how the instructions were ordered (timing simulation, sequential...)
    std::string inputs;        // where the inputs came from
    int operand_bits = 0;      // the scale/bias operand precision used
    uint64_t memory_bytes_estimate = 0;
};

nlohmann::ordered_json validate_report_json(const RunConfig& cfg, const num::ValidateResult& r,
                                            const ValidateContext& ctx);
void print_validate_report(const nlohmann::ordered_json& report, std::ostream& out);

}  // namespace bnsim
