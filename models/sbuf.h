#pragma once
// A core's state buffer: sbuf.partitions partitions of sbuf.bytes_per_partition bytes. At
// elaboration it checks that every SBUF region the core's instructions touch lies inside the
// buffer (and reports the highest byte the allocator used); at run time it is the access path
// of the DMA engines, adding sbuf.access_latency_ns to each descriptor that reads or writes it,
// and counts the bytes the engines and the DMA move through it. The compute engines' own access
// overhead is part of their cost-table fixed cycles, so it is not added again here.
#include <cstdint>

#include <systemc>

#include "models/hw_config.h"
#include "trace/trace.h"

namespace bnsim {

// The highest SBUF byte (per partition) any instruction of `core` touches.
uint64_t sbuf_highest_byte(const Trace& trace, uint8_t core);

class Sbuf : public sc_core::sc_module {
public:
    Sbuf(sc_core::sc_module_name name, const SbufParams& p, const Trace& trace, uint8_t core);

    // A DMA descriptor's access; returns the latency it adds.
    double dma_access(uint32_t bytes, bool write) {
        (write ? dma_written_ : dma_read_) += bytes;
        return p_.access_latency_ns;
    }
    // `n` alike descriptors' accesses (a lockstep group's lanes).
    void dma_accesses(uint32_t bytes, size_t n, bool write) { (write ? dma_written_ : dma_read_) += uint64_t(bytes) * n; }
    // An engine instruction's reads and writes.
    void engine_access(const Instruction& ins);

    uint64_t peak_bytes_per_partition() const { return peak_; }
    uint64_t dma_bytes_read() const { return dma_read_; }
    uint64_t dma_bytes_written() const { return dma_written_; }
    uint64_t engine_bytes_read() const { return eng_read_; }
    uint64_t engine_bytes_written() const { return eng_written_; }

private:
    SbufParams p_;
    uint8_t core_;
    uint64_t peak_ = 0;
    uint64_t dma_read_ = 0, dma_written_ = 0, eng_read_ = 0, eng_written_ = 0;
};

}  // namespace bnsim
