#pragma once
// Functional execution of a trace on real data, with the engines' numerics.
//
// An ExecutionObserverIF: whoever runs the trace (the timing simulation, or one of the simple
// runners in runners.h) calls on_start when an instruction begins and on_finish when its results
// become visible. The executor reads every input at on_start and writes every output at
// on_finish, so the order the runner chooses is the order data moves: a slot overwritten before
// its reader started yields wrong numbers, exactly as on hardware.
//
// Numerics (see the Numerics section of trn2-hardware.md and the kernel's precision notes):
//   - ACT and DVE read their operands into fp32, compute in fp32 and cast at the destination:
//     round-to-nearest-even for bf16, bit copies for fp32; DMAs cast src dtype -> dst dtype
//     (the uint8 mask -> bf16 load), otherwise copy bytes.
//   - ACT's per-partition scale/bias operands (SBUF columns, not immediates) go through a path of
//     `scale_bias_operand_bits` significand bits (trn2: 18), rounded nearest-even.
//   - activation with accumulate sums its fp32 output (before the destination cast) along the
//     free axis into ACT's per-partition reduce registers, element by element in fp32, on top of
//     what earlier instructions accumulated (reset_accumulate starts from zero); acc_readout
//     writes the registers to dsts[1].
//   - tensor_reduce sums each partition's free axis sequentially in fp32.
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "trace/execution_observer.h"
#include "numerics/device_memory.h"

namespace bnsim::num {

struct ExecutorOptions {
    int scale_bias_operand_bits = 24;  // 24 = exact fp32
};

class FunctionalExecutor : public ExecutionObserverIF {
public:
    FunctionalExecutor(DeviceMemory& mem, ExecutorOptions opts);

    void on_start(const Instruction& ins, double t_ns) override;
    void on_finish(const Instruction& ins, double t_ns) override;

    // The current contents of an operand as fp32, row-major [rows x elems_per_row].
    std::vector<float> read(const Operand& op) const;
    void read_into(const Operand& op, std::vector<float>& out) const;
    uint64_t started() const { return started_; }
    uint64_t finished() const { return finished_; }
    DeviceMemory& memory() { return mem_; }

private:
    struct Write {
        Region region;
        std::vector<uint8_t> bytes;  // rows x bytes_per_row, already in the destination dtype
    };
    struct Pending {
        std::vector<Write> writes;
        bool writes_acc = false;
        std::vector<float> acc;  // new reduce-register values of the instruction's partitions
    };

    DeviceMemory& mem_;
    ExecutorOptions opts_;
    std::vector<std::vector<float>> acc_;  // ACT reduce registers, per core, 128 partitions
    std::unordered_map<uint32_t, Pending> pending_;
    uint64_t started_ = 0, finished_ = 0;

    // Buffers reused across instructions (a seed-shape tile is megabytes; allocating and
    // zeroing one per instruction would dominate the run).
    std::vector<float> a_, b_;
    std::vector<std::vector<uint8_t>> byte_pool_;

    Pending compute(const Instruction& ins);
    Write encode(const Operand& dst, const std::vector<float>& values);
    Write copy_bytes(const Operand& dst, const Operand& src);
    std::vector<uint8_t> take_bytes(size_t n);
    std::vector<float> scalar(const ScalarArg& s, uint32_t rows, bool operand_path) const;
};

}  // namespace bnsim::num
