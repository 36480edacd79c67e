#pragma once
// Functional execution of a trace on real data, with the engines' numerics.
//
// An ExecutionObserverIF: whoever runs the trace (the timing simulation, or one of the simple
// runners in runners.h) calls on_start when an instruction begins and on_finish when its results
// become visible. An instruction reads its inputs as they are at on_start and writes its outputs
// at on_finish, so the order the runner chooses is the order data moves: a slot overwritten before
// its reader started yields wrong numbers, exactly as on hardware.
//
// The work is done at on_finish, row by row (each row converted to fp32 in a small buffer that
// stays in cache) straight into the destination, since the inputs are usually unchanged by then.
// When another instruction is about to write something a pending one reads (its on_finish comes
// between the reader's on_start and on_finish), the reader's results are computed first, from the
// inputs as they still are, and held until its own on_finish: the same results either way.
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
#include <functional>
#include <unordered_map>
#include <vector>

#include "trace/execution_observer.h"
#include "numerics/device_memory.h"
#include "numerics/work_share.h"

namespace bnsim::num {

struct ExecutorOptions {
    int scale_bias_operand_bits = 24;  // 24 = exact fp32
    int threads = 0;  // an instruction's rows are shared by this many threads (0: one per hardware thread)
};

// When the executor computes an instruction's results early and holds them in a buffer until
// its on_finish (the streamed memory estimate walks the same rules): when they could overwrite
// its own inputs before it has read them all, or when `writer` finishes while `reader` is in
// flight and writes something reader reads.
bool stages_own_results(const Instruction& ins);
bool writes_what_it_reads(const Instruction& writer, const Instruction& reader);

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
    // An instruction between on_start and on_finish. Its results are computed at on_finish,
    // unless a write to its inputs comes first: then they are computed before that write and
    // held (staged) until its on_finish.
    struct Pending {
        const Instruction* ins = nullptr;
        bool staged = false;
        std::vector<Write> writes;  // staged results, one per destination
        bool writes_acc = false;
        std::vector<float> acc;  // new reduce-register values of the instruction's partitions
    };

    DeviceMemory& mem_;
    ExecutorOptions opts_;
    std::vector<std::vector<float>> acc_;  // ACT reduce registers, per core, 128 partitions
    std::unordered_map<uint32_t, Pending> pending_;
    uint64_t started_ = 0, finished_ = 0;

    std::vector<std::vector<uint8_t>> byte_pool_;  // staging buffers kept for reuse
    WorkShare share_;  // helper threads for the rows of large instructions

    // f(i) for every row i of ins (or every group of rows, rows = the number of groups): on the
    // helper threads too when ins moves enough bytes (rows are independent; the results are the
    // same whoever computes them).
    void each_row(const Instruction& ins, uint32_t rows, const std::function<void(uint32_t)>& f);

    // Computes ins's results: into device memory, or into p.writes when `stage`.
    void compute(const Instruction& ins, Pending& p, bool stage);
    void stage_readers_of(const Instruction& writer);
    std::vector<uint8_t> take_bytes(size_t n);
    std::vector<float> scalar(const ScalarArg& s, uint32_t rows, bool operand_path) const;
};

}  // namespace bnsim::num
