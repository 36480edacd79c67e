#pragma once
// A kernel's instruction trace: HBM tensors, and instructions in program order for every core.
// Kernels append instructions; derive_dependencies() then adds the RAW/WAR/WAW edges.
#include <cstdint>
#include <deque>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "trace/instruction.h"

namespace bnsim {

// An HBM tensor viewed as [rows, row_bytes], at a byte address in the HBM space.
struct HbmTensor {
    uint32_t id = 0;
    std::string name;
    DType dtype = DType::fp32;
    std::vector<int64_t> shape;  // logical shape, for reports and numerics
    uint64_t rows = 0;
    uint64_t row_bytes = 0;
    uint64_t base_addr = 0;
    int owner_core = -1;  // -1: shared by the cores; else a core-private staging buffer
    bool is_input = false;
    bool is_output = false;

    uint64_t bytes() const { return rows * row_bytes; }
};

// A trace past the process's instruction limit (set_trace_limit): the machine could not
// simulate it. append() throws this rather than growing until the allocator gives up.
struct TraceTooLarge : std::runtime_error {
    using std::runtime_error::runtime_error;
};
// Process-wide; the default is no limit. bnsim sets it from the memory the machine has.
void set_trace_limit(size_t max_instructions);
size_t trace_limit();

class Trace {
public:
    std::string kernel;
    int num_cores = 1;
    // Every instruction's deps hold its derived dependencies (derive_dependencies ran, or the
    // trace was read back from an image of a derived trace). A kernel may leave them to its
    // caller (RunConfig::generate derives them then): a command that screens many traces
    // derives only those it schedules.
    bool deps_derived = false;

    // Registers an HBM tensor; addresses are assigned contiguously, aligned to `align` bytes.
    uint32_t add_tensor(HbmTensor t, uint64_t align = 4096);
    // Registers a tensor at the address it carries (a trace read from a file); the caller keeps
    // tensors in address order without overlaps.
    uint32_t add_placed_tensor(HbmTensor t);
    const std::vector<HbmTensor>& tensors() const { return tensors_; }
    const HbmTensor& tensor(uint32_t id) const { return tensors_.at(id); }
    const HbmTensor* find_tensor(const std::string& name, int owner_core = -1) const;

    // Appends in program order; sets the id. Returns a reference valid until the next append.
    // (Taken by reference: an instruction is 384 bytes, and a generator appends each once.)
    Instruction& append(Instruction&& ins);
    Instruction& append(const Instruction& ins) { return append(Instruction(ins)); }
    // Room for n instructions: a generator that knows about how many it will append spares the
    // trace its regrowth copies (only the pages it then fills are touched, so erring high is cheap)
    // and is refused up front (TraceTooLarge) when n is past the limit.
    void reserve(size_t n);
    const std::vector<Instruction>& instructions() const { return instrs_; }
    std::vector<Instruction>& instructions() { return instrs_; }
    size_t size() const { return instrs_.size(); }

    // Region of a whole HBM tensor, or of rows [r0, r1) and bytes [b0, b1) of it.
    Region hbm(uint32_t tensor, uint64_t r0, uint64_t r1, uint64_t b0, uint64_t b1) const;

    // A string that lives as long as the trace (and its copies): the tag texts of a trace read
    // from a file, whose instructions point at them as the generators' tags point at literals.
    const char* keep_string(const std::string& s);

private:
    std::shared_ptr<std::deque<std::string>> strings_;
    std::vector<HbmTensor> tensors_;
    std::vector<Instruction> instrs_;
    uint64_t next_addr_ = 0;
};

// Derives read-after-write, write-after-read and write-after-write edges from overlapping
// regions, per core, in program order (each core's program is compiled on its own, as NKI
// does for an SPMD kernel; cores synchronise only through collectives such as sendrecv).
// Replaces any existing deps.
void derive_dependencies(Trace& trace);
// The same unless the trace has them already (Trace::deps_derived: a kernel that derives its own,
// a kept trace image).
inline void ensure_dependencies(Trace& trace) {
    if (!trace.deps_derived) derive_dependencies(trace);
}

// Summary counts used by reports and tests.
struct TraceStats {
    uint64_t total = 0;
    uint64_t by_engine[kNumEngines] = {};
    uint64_t by_opcode[kNumOpcodes] = {};
    uint64_t dma = 0;
    uint64_t dma_by_dge[kNumDgeModes] = {};
    uint64_t hbm_read_bytes = 0;
    uint64_t hbm_write_bytes = 0;
    uint64_t dependency_edges = 0;
};
TraceStats compute_stats(const Trace& trace);

}  // namespace bnsim
