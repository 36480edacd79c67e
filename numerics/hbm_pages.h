#pragma once
// HBM tensors held in pages of whole rows, each only while the trace needs it: for a validation
// whose tensors do not fit in memory whole (DeviceMemory's streamed mode), and, holding no data,
// for the up-front estimate of what such a run holds at its peak.
//
// A page of an input no instruction writes is read from the loader when an instruction touching
// it starts and dropped when the last one in flight finishes (it can be read again). Any other
// page (outputs, scratch, written inputs) lives from the start of the first instruction touching
// it (filled with 0xff, NaN in bf16 and fp32, or from the loader for an input) to the finish of
// the last one; an output page is then handed to its receiver. Pages are a few rows (about
// 64 KiB, at least one row), so a kernel that walks its tensors tile by tile holds a few tiles.
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "trace/trace.h"

namespace bnsim::num {

struct HbmStreamIO {
    // Fills rows [lo, hi) of input tensor t with their bytes (called from several threads at once
    // for different pages).
    std::function<void(const HbmTensor& t, uint64_t lo, uint64_t hi, uint8_t* dst)> read_input;
    // Rows [lo, hi) of output tensor t are final (no instruction touches them again): the page
    // holding their bytes (null when the pages hold no data), which the receiver may keep by
    // moving it out (no copy). Called once for every row of every output.
    std::function<void(const HbmTensor& t, uint64_t lo, uint64_t hi, std::unique_ptr<uint8_t[]>& page)> take_output;
};

class HbmPages {
public:
    // hold_data false: only the resident bytes are tracked (read_input is never called).
    HbmPages(const Trace& trace, HbmStreamIO io, bool hold_data = true);

    // Before an instruction reads its operands, and after it wrote its results.
    void acquire(const Instruction& ins);
    void release(const Instruction& ins);
    // After the run: hands over every output row not yet handed over (rows no instruction
    // touched read as 0xff).
    void flush();

    // Row `row` of tensor `t` (its page must be resident: logic_error otherwise).
    uint8_t* row(uint32_t t, uint64_t row);

    uint64_t resident_bytes() const { return resident_; }
    uint64_t peak_bytes() const { return peak_; }

private:
    struct Page {
        std::unique_ptr<uint8_t[]> data;
        bool resident = false, delivered = false;
        uint32_t pending = 0;    // accesses that have not finished
        uint32_t in_flight = 0;  // accesses started and not finished
    };
    struct Tensor {
        uint64_t rows_per_page = 1;
        bool regenerable = false;  // an input no instruction writes
        std::vector<Page> pages;
    };

    const Trace& trace_;
    HbmStreamIO io_;
    bool hold_;
    std::vector<Tensor> tensors_;
    uint64_t resident_ = 0, peak_ = 0;

    template <typename F>
    void each_page(const Instruction& ins, F&& f);
    uint64_t page_rows(uint32_t t, size_t p) const;
    void page_in(uint32_t t, size_t p);  // made resident (allocated, not yet filled)
    void fill(uint32_t t, size_t p);     // from the loader, or 0xff
    void page_out(uint32_t t, size_t p);
};

}  // namespace bnsim::num
