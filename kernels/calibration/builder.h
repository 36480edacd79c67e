#pragma once
// Shared plumbing of the calibration kernels: a single-core trace, a bump allocator over one
// partition's SBUF bytes, and the few instruction shapes the microbenchmarks emit.
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/calibration/params.h"
#include "kernels/kernel_target.h"

namespace bnsim::cal {

class Builder {
public:
    // Checks the target (one core, enough partitions for `partitions`) and names the kernel.
    Builder(const char* kernel, const KernelTarget& t, uint32_t partitions);

    Trace& trace() { return out_.trace; }
    nlohmann::ordered_json& info() { return out_.info; }

    // An HBM tensor [rows, cols] of dtype (input or output).
    uint32_t hbm_tensor(const std::string& name, DType dt, uint64_t rows, uint64_t cols, bool input);
    // Rows [r0, r1) and elements [c0, c1) of an HBM tensor.
    Operand hbm(uint32_t tensor, uint64_t r0, uint64_t r1, uint64_t c0, uint64_t c1) const;

    // Allocates `bytes` per partition of SBUF (aligned); KernelError naming `what` when the
    // usable SBUF is exceeded.
    uint64_t sbuf_alloc(uint64_t bytes, const std::string& what);
    // `bytes` rounded up to the SBUF alignment (the size one of several side-by-side buffers takes).
    uint64_t aligned(uint64_t bytes) const;
    uint64_t sbuf_free_bytes() const;
    static Operand sbuf(uint32_t p0, uint32_t p1, uint64_t addr, uint64_t elems, DType dt);
    // Partitions [p0, p1) x `elems` elements from the start of PSUM (a calibration kernel holds
    // at most one PSUM tile).
    static Operand psum(uint32_t p0, uint32_t p1, uint64_t elems, DType dt);

    uint32_t dma(const Operand& src, const Operand& dst, DgeMode dge, uint16_t queue, const char* what);
    // Appends an instruction whose shape is that of `main`; returns its id.
    uint32_t append(Instruction in, const Operand& main, const char* what);

    void measured(uint32_t id) { measured_.push_back(id); }
    // Tags the instructions appended from now on with this loop iteration (-1: none).
    void set_unit(int32_t unit) { unit_ = unit; }
    // Derives the dependencies, records the measured instructions and returns the kernel.
    GeneratedKernel finish();

private:
    GeneratedKernel out_;
    KernelTarget t_;
    uint64_t sbuf_top_ = 0;
    std::vector<uint32_t> measured_;
    int32_t unit_ = -1;
};

// Throws KernelError("<kernel>.<key>: <message>").
[[noreturn]] void fail(const char* kernel, const std::string& key, const std::string& message);

}  // namespace bnsim::cal
