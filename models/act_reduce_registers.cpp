#include "models/act_reduce_registers.h"

#include <stdexcept>

namespace bnsim {

double ActReduceRegisters::extra_ns(const HwConfig& hw, const Instruction& ins) {
    double ns = 0;
    if (ins.accumulate != Accumulate::none)
        ns += hw.act.accumulate_extra_cycles / hw.engine(Engine::Act).clock_ghz;
    if (ins.acc_readout) ns += hw.act.read_accumulator_ns;
    return ns;
}

void ActReduceRegisters::execute(const Instruction& ins) {
    if (ins.accumulate == Accumulate::reset_accumulate) live_ = true;
    if (ins.accumulate == Accumulate::accumulate && !live_)
        throw std::runtime_error("ACT reduce registers: instruction " + std::to_string(ins.id) + " (" + ins.tag.what +
                                 ") accumulates without a reset first");
    if (ins.accumulate != Accumulate::none) ++accumulations_;
    if (ins.acc_readout) {
        if (!live_)
            throw std::runtime_error("ACT reduce registers: instruction " + std::to_string(ins.id) + " (" +
                                     ins.tag.what + ") reads out registers nothing accumulated into");
        ++readouts_;
        live_ = false;
    }
}

}  // namespace bnsim
