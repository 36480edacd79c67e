#pragma once
// ACT's per-partition reduce registers: an activation may reset-and-accumulate or accumulate
// its output's row sums into them, and one activation reads them out to SBUF (acc_readout).
// Accumulating costs act.accumulate_extra_cycles on top of the activation; reading out costs
// act.read_accumulator_ns. The object also checks the protocol as the ACT engine executes it
// (accumulate without a reset first, read-out of never-written registers).
#include <cstdint>
#include <string>

#include "models/hw_config.h"
#include "trace/instruction.h"

namespace bnsim {

class ActReduceRegisters {
public:
    // Extra time an activation spends on the registers beyond its table cost.
    static double extra_ns(const HwConfig& hw, const Instruction& ins);

    // Executes the register side of an activation; throws std::runtime_error on a protocol error.
    void execute(const Instruction& ins);

    uint64_t accumulations() const { return accumulations_; }
    uint64_t readouts() const { return readouts_; }

private:
    bool live_ = false;  // reset since the last read-out
    uint64_t accumulations_ = 0, readouts_ = 0;
};

}  // namespace bnsim
