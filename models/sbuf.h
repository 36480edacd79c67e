#pragma once
// A core's state buffer: sbuf.partitions partitions of sbuf.bytes_per_partition bytes. Before a
// run, check_sbuf_access (called from the simulation's one check pass over the trace) checks
// that every SBUF region the instructions touch lies inside the buffer and notes the highest byte
// the allocator used; at run time the module is the access path of the DMA engines, adding
// sbuf.access_latency_ns to each descriptor that reads or writes it, and counts the bytes the
// engines and the DMA move through it. The compute engines' own access overhead is part of their
// cost-table fixed cycles, so it is not added again here.
#include <cstdint>
#include <vector>

#include <systemc>

#include "models/hw_config.h"
#include "trace/trace.h"

namespace bnsim {

// One region `in` touches: if it is in the SBUF of `in`'s own core (a peer's buffer is its own
// core's to count), raises peak[core] to its highest byte. `peak` has an entry per core.
void note_sbuf_peak(const Instruction& in, const Region& r, std::vector<uint64_t>& peak);
// Per core, the highest SBUF byte (per partition) any of its instructions touches, in one pass.
std::vector<uint64_t> sbuf_highest_bytes(const Trace& trace);
// note_sbuf_peak, after checking the region: throws std::runtime_error naming the instruction
// when it lies outside `p`'s partitions x bytes.
void check_sbuf_access(const SbufParams& p, const Instruction& in, const Region& r, std::vector<uint64_t>& peak);

class Sbuf : public sc_core::sc_module {
public:
    Sbuf(sc_core::sc_module_name name, const SbufParams& p, uint8_t core);

    // A DMA descriptor's access; returns the latency it adds.
    double dma_access(uint32_t bytes, bool write) {
        (write ? dma_written_ : dma_read_) += bytes;
        return p_.access_latency_ns;
    }
    // `n` alike descriptors' accesses (a lockstep group's lanes).
    void dma_accesses(uint32_t bytes, size_t n, bool write) { (write ? dma_written_ : dma_read_) += uint64_t(bytes) * n; }
    // An engine instruction's reads and writes.
    void engine_access(const Instruction& ins);

    uint64_t dma_bytes_read() const { return dma_read_; }
    uint64_t dma_bytes_written() const { return dma_written_; }
    uint64_t engine_bytes_read() const { return eng_read_; }
    uint64_t engine_bytes_written() const { return eng_written_; }

private:
    SbufParams p_;
    uint8_t core_;
    uint64_t dma_read_ = 0, dma_written_ = 0, eng_read_ = 0, eng_written_ = 0;
};

}  // namespace bnsim
