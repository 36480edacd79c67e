#pragma once
// The bytes a kernel runs on: one SBUF image per core ([partitions x bytes per partition],
// byte-addressed exactly as the allocator laid it out, so slot reuse and overwrites behave as on
// hardware) and one byte array per HBM tensor of the trace ([rows x row_bytes]).
//
// Memory nobody wrote reads as NaN (all-ones bytes in bf16 and fp32), so a read of a slot that
// was never filled shows up in the results instead of passing as zeros. Only the pages some
// instruction touches are filled (and so ever become resident): an SBUF image or scratch tensor
// the kernel uses in part costs only that part. Output tensors are filled whole (their untouched
// bytes are read by the comparison). Inputs are left for the loader: it fills them, or lends a
// read-only image it already holds (borrow), so an input is never held twice.
//
// Streamed (given an HbmStreamIO): the HBM tensors are held in pages only while the trace needs
// them (numerics/hbm_pages.h); the executor brackets each instruction with acquire and release,
// inputs come from the loader page by page and outputs go to their receiver page by page.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "numerics/buffer.h"
#include "numerics/hbm_pages.h"
#include "trace/trace.h"

namespace bnsim::num {

class DeviceMemory {
public:
    DeviceMemory(const Trace& trace, int partitions, uint64_t sbuf_bytes_per_partition);
    DeviceMemory(const Trace& trace, int partitions, uint64_t sbuf_bytes_per_partition, HbmStreamIO stream);

    // Streamed: make the HBM pages an instruction touches resident before it reads, and let them
    // go after it wrote (no-ops otherwise). After the run, flush() hands over the outputs left.
    void acquire(const Instruction& ins) {
        if (pages_) pages_->acquire(ins);
    }
    void release(const Instruction& ins) {
        if (pages_) pages_->release(ins);
    }
    void flush() {
        if (pages_) pages_->flush();
    }
    bool streamed() const { return bool(pages_); }

    // Pointer to row `i` (0-based inside the region) at the region's first byte. Checks bounds
    // and throws std::out_of_range naming the region.
    uint8_t* row(const Region& r, uint32_t i);
    const uint8_t* row(const Region& r, uint32_t i) const;

    // Lends a tensor's full image (bytes() bytes, kept alive and unchanged by the caller) instead
    // of a copy. Only for a tensor no instruction of the trace writes: returns false (and lends
    // nothing) otherwise, and the caller fills hbm(tensor) instead.
    bool borrow(uint32_t tensor, const uint8_t* bytes, size_t n);

    BigVector<uint8_t>& hbm(uint32_t tensor) { return hbm_.at(tensor); }
    const BigVector<uint8_t>& hbm(uint32_t tensor) const { return hbm_.at(tensor); }
    const Trace& trace() const { return *trace_; }
    uint64_t sbuf_bytes_per_partition() const { return sbuf_bpp_; }
    int num_cores() const { return int(sbuf_.size()); }
    // Bytes resident once every touched page is in use (borrowed images not counted; streamed:
    // the SBUF images only).
    uint64_t allocated_bytes() const;

    // Bytes this memory makes resident for a trace, its inputs included (for the up-front memory
    // check): every touched page of the SBUF images and of the non-input tensors, all of the
    // outputs and of the inputs.
    static uint64_t bytes_needed(const Trace& trace, int partitions, uint64_t sbuf_bytes_per_partition);
    // The SBUF part of that (what a streamed run holds besides its HBM pages).
    static uint64_t sbuf_bytes_needed(const Trace& trace, int partitions, uint64_t sbuf_bytes_per_partition);

private:
    const Trace* trace_;
    int partitions_;
    uint64_t sbuf_bpp_;
    std::vector<BigVector<uint8_t>> sbuf_;  // per core
    std::vector<BigVector<uint8_t>> hbm_;   // per tensor id
    std::vector<const uint8_t*> borrowed_;  // per tensor id: a lent image, or null
    std::vector<bool> written_;             // per tensor id: some instruction writes it
    uint64_t touched_bytes_ = 0;
    std::unique_ptr<HbmPages> pages_;  // streamed mode
    [[noreturn]] void out_of_range(const Region& r, uint32_t i) const;
};

std::string describe_region(const Trace& trace, const Region& r);

// Element conversion between memory bytes and fp32 (the engines' internal type).
void load_elems(const uint8_t* src, DType dt, size_t n, float* out);
// fp32 -> dtype: bf16 by round-to-nearest-even, u8 by rounding and saturating.
void store_elems(const float* in, DType dt, size_t n, uint8_t* dst);

}  // namespace bnsim::num
