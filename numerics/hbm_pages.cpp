#include "numerics/hbm_pages.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

#include "numerics/parallel.h"

namespace bnsim::num {
namespace {

// Rows per page: whole rows, about this many bytes (so a page is one allocation that the
// allocator returns to the system, and a [B, C, spatial] tensor's page holds rows of one channel
// tile of one batch).
constexpr uint64_t kPageBytes = 64 * 1024;

bool in_bounds(const Trace& trace, const Region& r) {
    if (r.space != Space::Hbm || r.buffer >= trace.tensors().size() || r.empty()) return false;
    const HbmTensor& t = trace.tensor(r.buffer);
    return r.row_hi <= t.rows && r.byte_hi <= t.row_bytes;
}

}  // namespace

HbmPages::HbmPages(const Trace& trace, HbmStreamIO io, bool hold_data)
    : trace_(trace), io_(std::move(io)), hold_(hold_data) {
    std::vector<bool> written(trace.tensors().size(), false);
    for (const auto& ins : trace.instructions())
        for (const Region& r : ins.writes())
            if (in_bounds(trace, r)) written[r.buffer] = true;
    for (const auto& t : trace.tensors()) {
        Tensor s;
        s.rows_per_page = std::max<uint64_t>(1, kPageBytes / std::max<uint64_t>(t.row_bytes, 1));
        s.regenerable = t.is_input && !written[t.id];
        s.pages.resize(size_t((t.rows + s.rows_per_page - 1) / s.rows_per_page));
        tensors_.push_back(std::move(s));
    }
    for (const auto& ins : trace.instructions()) each_page(ins, [&](uint32_t t, size_t p) { ++tensors_[t].pages[p].pending; });
}

template <typename F>
void HbmPages::each_page(const Instruction& ins, F&& f) {
    auto visit = [&](const Region& r) {
        if (!in_bounds(trace_, r)) return;  // DeviceMemory::row reports it when it executes
        const uint64_t rpp = tensors_[r.buffer].rows_per_page;
        for (uint64_t p = r.row_lo / rpp; p <= (uint64_t(r.row_hi) - 1) / rpp; ++p) f(r.buffer, size_t(p));
    };
    for (const Region& r : ins.reads()) visit(r);
    for (const Region& r : ins.writes()) visit(r);
}

uint64_t HbmPages::page_rows(uint32_t t, size_t p) const {
    const uint64_t rpp = tensors_[t].rows_per_page, lo = uint64_t(p) * rpp;
    return std::min(trace_.tensor(t).rows, lo + rpp) - lo;
}

void HbmPages::page_in(uint32_t t, size_t p) {
    Page& pg = tensors_[t].pages[p];
    const uint64_t bytes = page_rows(t, p) * trace_.tensor(t).row_bytes;
    if (hold_) pg.data.reset(new uint8_t[size_t(bytes)]);
    pg.resident = true;
    resident_ += bytes;
    peak_ = std::max(peak_, resident_);
}

void HbmPages::fill(uint32_t t, size_t p) {
    const HbmTensor& tensor = trace_.tensor(t);
    const uint64_t rows = page_rows(t, p), lo = uint64_t(p) * tensors_[t].rows_per_page;
    uint8_t* d = tensors_[t].pages[p].data.get();
    if (tensor.is_input) io_.read_input(tensor, lo, lo + rows, d);
    else std::memset(d, 0xff, size_t(rows * tensor.row_bytes));
}

void HbmPages::page_out(uint32_t t, size_t p) {
    Page& pg = tensors_[t].pages[p];
    const HbmTensor& tensor = trace_.tensor(t);
    const uint64_t rows = page_rows(t, p);
    if (tensor.is_output && !pg.delivered) {
        const uint64_t lo = uint64_t(p) * tensors_[t].rows_per_page;
        pg.delivered = true;
        io_.take_output(tensor, lo, lo + rows, pg.data);
    }
    pg.data.reset();
    pg.resident = false;
    resident_ -= rows * tensor.row_bytes;
}

void HbmPages::acquire(const Instruction& ins) {
    std::vector<std::pair<uint32_t, size_t>> fresh;
    each_page(ins, [&](uint32_t t, size_t p) {
        Page& pg = tensors_[t].pages[p];
        if (!pg.resident) {
            page_in(t, p);
            fresh.emplace_back(t, p);
        }
        ++pg.in_flight;
    });
    if (!hold_) return;
    // Pages are independent and the loader gives the same bytes on any thread: a DMA's rows
    // (a channel tile of pages) are made on every hardware thread.
    num::parallel_for(fresh.size(), fresh.size() >= 8 ? 0 : 1,
                      [&](size_t i) { fill(fresh[i].first, fresh[i].second); });
}

void HbmPages::release(const Instruction& ins) {
    each_page(ins, [&](uint32_t t, size_t p) {
        Page& pg = tensors_[t].pages[p];
        if (pg.in_flight == 0 || pg.pending == 0)
            throw std::logic_error("numerics: instruction " + std::to_string(ins.id) + " finished without starting");
        --pg.in_flight;
        --pg.pending;
        const bool done = tensors_[t].regenerable ? pg.in_flight == 0 : pg.pending == 0;
        if (done) page_out(t, p);
    });
}

void HbmPages::flush() {
    for (uint32_t t = 0; t < tensors_.size(); ++t) {
        if (!trace_.tensor(t).is_output) continue;
        for (size_t p = 0; p < tensors_[t].pages.size(); ++p) {
            Page& pg = tensors_[t].pages[p];
            if (pg.delivered) continue;
            if (!pg.resident) {
                page_in(t, p);
                if (hold_) fill(t, p);
            }
            page_out(t, p);
        }
    }
}

uint8_t* HbmPages::row(uint32_t t, uint64_t row) {
    const Tensor& s = tensors_.at(t);
    Page& pg = tensors_[t].pages.at(size_t(row / s.rows_per_page));
    if (!pg.data)
        throw std::logic_error("numerics: row " + std::to_string(row) + " of HBM tensor " + trace_.tensor(t).name +
                               " is not resident (an access outside an instruction's regions)");
    return pg.data.get() + (row % s.rows_per_page) * trace_.tensor(t).row_bytes;
}

}  // namespace bnsim::num
