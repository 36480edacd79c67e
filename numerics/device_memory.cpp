#include "numerics/device_memory.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "numerics/bf16.h"
#include "numerics/parallel.h"
#include "numerics/vector_clones.h"

namespace bnsim::num {

namespace {

constexpr uint64_t kPage = 4096;

// Pages (of kPage bytes) of each SBUF image and HBM tensor that some instruction reads or
// writes, and which HBM tensors some instruction writes. Regions outside an image are left to
// DeviceMemory::row to report when they execute.
struct Footprint {
    std::vector<std::vector<bool>> sbuf, hbm;  // per core / per tensor id: page touched
    std::vector<bool> hbm_written;             // per tensor id
};

void mark(std::vector<bool>& pages, uint64_t lo, uint64_t hi) {
    const uint64_t end = std::min<uint64_t>((hi + kPage - 1) / kPage, pages.size());
    for (uint64_t p = lo / kPage; p < end; ++p) pages[p] = true;
}

void mark_rows(std::vector<bool>& pages, const Region& r, uint64_t row_stride) {
    if (r.byte_hi > row_stride) return;
    for (uint64_t row = r.row_lo; row < r.row_hi; ++row)
        mark(pages, row * row_stride + r.byte_lo, row * row_stride + r.byte_hi);
}

Footprint footprint(const Trace& trace, size_t cores, int partitions, uint64_t bpp) {
    Footprint f;
    const uint64_t sbuf_pages = (uint64_t(partitions) * bpp + kPage - 1) / kPage;
    f.sbuf.assign(cores, std::vector<bool>(size_t(sbuf_pages), false));
    for (const auto& t : trace.tensors()) f.hbm.emplace_back(size_t((t.bytes() + kPage - 1) / kPage), false);
    f.hbm_written.assign(trace.tensors().size(), false);
    auto touch = [&](const Region& r, bool write) {
        if (r.space == Space::Sbuf && r.core < cores && r.row_hi <= uint32_t(partitions)) {
            mark_rows(f.sbuf[r.core], r, bpp);
        } else if (r.space == Space::Hbm && r.buffer < f.hbm.size()) {
            const HbmTensor& t = trace.tensor(r.buffer);
            if (r.row_hi <= t.rows) mark_rows(f.hbm[r.buffer], r, t.row_bytes);
            if (write) f.hbm_written[r.buffer] = true;
        }
    };
    for (const auto& ins : trace.instructions()) {
        for (const Region& r : ins.reads()) touch(r, false);
        for (const Region& r : ins.writes()) touch(r, true);
    }
    return f;
}

// Bytes that become resident when the given pages of a buffer are touched: large buffers are
// advised as transparent huge pages (numerics/buffer.h), where one touched byte makes its whole
// 2 MiB page resident.
uint64_t resident_bytes(const std::vector<bool>& pages, uint64_t size) {
    const uint64_t huge = BigAllocator<uint8_t>::kHuge;
    const uint64_t unit = size >= 4 * huge ? huge : kPage;
    const uint64_t per = unit / kPage;
    uint64_t n = 0;
    for (uint64_t u = 0; u * per < pages.size(); ++u)
        for (uint64_t p = u * per; p < std::min<uint64_t>((u + 1) * per, pages.size()); ++p)
            if (pages[p]) {
                n += std::min(unit, size - u * unit);
                break;
            }
    return n;
}

// Fills the touched pages of v with 0xff (NaN in bf16 and fp32), in parallel blocks so the
// page faults of a large image overlap.
void fill_touched(BigVector<uint8_t>& v, const std::vector<bool>& pages) {
    constexpr size_t kBlock = 512;  // pages (2 MiB)
    parallel_for((pages.size() + kBlock - 1) / kBlock, 0, [&](size_t b) {
        size_t p = b * kBlock;
        const size_t end = std::min(pages.size(), p + kBlock);
        while (p < end) {
            if (!pages[p]) {
                ++p;
                continue;
            }
            size_t q = p;
            while (q < end && pages[q]) ++q;
            const size_t lo = p * kPage, hi = std::min<size_t>(q * kPage, v.size());
            std::memset(v.data() + lo, 0xff, hi - lo);
            p = q;
        }
    });
}

// One SBUF image per core, with the pages the trace touches made resident (whole and streamed
// runs hold the SBUF alike); returns the bytes made resident.
uint64_t make_sbuf_images(std::vector<BigVector<uint8_t>>& sbuf, const Footprint& f, int partitions, uint64_t bpp) {
    uint64_t resident = 0;
    sbuf.resize(f.sbuf.size());
    for (size_t c = 0; c < sbuf.size(); ++c) {
        sbuf[c].resize(size_t(partitions) * bpp);
        fill_touched(sbuf[c], f.sbuf[c]);
        resident += resident_bytes(f.sbuf[c], sbuf[c].size());
    }
    return resident;
}

}  // namespace

DeviceMemory::DeviceMemory(const Trace& trace, int partitions, uint64_t bpp, HbmStreamIO stream)
    : trace_(&trace), partitions_(partitions), sbuf_bpp_(bpp) {
    const size_t cores = size_t(std::max(trace.num_cores, 1));
    Footprint f = footprint(trace, cores, partitions, bpp);
    touched_bytes_ += make_sbuf_images(sbuf_, f, partitions, bpp);
    borrowed_.assign(trace.tensors().size(), nullptr);
    written_ = std::move(f.hbm_written);
    hbm_.resize(trace.tensors().size());
    pages_ = std::make_unique<HbmPages>(trace, std::move(stream));
}

DeviceMemory::DeviceMemory(const Trace& trace, int partitions, uint64_t bpp)
    : trace_(&trace), partitions_(partitions), sbuf_bpp_(bpp) {
    const size_t cores = size_t(std::max(trace.num_cores, 1));
    Footprint f = footprint(trace, cores, partitions, bpp);
    touched_bytes_ += make_sbuf_images(sbuf_, f, partitions, bpp);
    borrowed_.assign(trace.tensors().size(), nullptr);
    written_ = std::move(f.hbm_written);
    for (const auto& t : trace.tensors()) {
        hbm_.emplace_back();
        auto& h = hbm_.back();
        h.resize(size_t(t.bytes()));
        if (t.is_input) {  // written by the loader, or lent (borrow)
            touched_bytes_ += t.bytes();
            continue;
        }
        auto& pages = f.hbm[t.id];
        if (t.is_output) pages.assign(pages.size(), true);
        fill_touched(h, pages);
        touched_bytes_ += resident_bytes(pages, t.bytes());
    }
}

uint64_t DeviceMemory::bytes_needed(const Trace& trace, int partitions, uint64_t bpp) {
    const size_t cores = size_t(std::max(trace.num_cores, 1));
    const Footprint f = footprint(trace, cores, partitions, bpp);
    uint64_t n = 0;
    for (size_t c = 0; c < cores; ++c) n += resident_bytes(f.sbuf[c], uint64_t(partitions) * bpp);
    for (const auto& t : trace.tensors())
        n += t.is_input || t.is_output ? t.bytes() : resident_bytes(f.hbm[t.id], t.bytes());
    return n;
}

uint64_t DeviceMemory::sbuf_bytes_needed(const Trace& trace, int partitions, uint64_t bpp) {
    const size_t cores = size_t(std::max(trace.num_cores, 1));
    const Footprint f = footprint(trace, cores, partitions, bpp);
    uint64_t n = 0;
    for (size_t c = 0; c < cores; ++c) n += resident_bytes(f.sbuf[c], uint64_t(partitions) * bpp);
    return n;
}

uint64_t DeviceMemory::allocated_bytes() const { return touched_bytes_; }

bool DeviceMemory::borrow(uint32_t tensor, const uint8_t* bytes, size_t n) {
    const HbmTensor& t = trace_->tensor(tensor);
    if (pages_ || !t.is_input || written_.at(tensor) || n != t.bytes()) return false;
    borrowed_[tensor] = bytes;
    hbm_[tensor] = BigVector<uint8_t>();
    touched_bytes_ -= t.bytes();
    return true;
}

std::string describe_region(const Trace& trace, const Region& r) {
    std::ostringstream o;
    if (r.space == Space::Hbm) {
        const auto& t = trace.tensor(r.buffer);
        o << "hbm " << t.name;
        if (t.owner_core >= 0) o << "(core" << t.owner_core << ")";
        o << " rows [" << r.row_lo << "," << r.row_hi << ") bytes [" << r.byte_lo << "," << r.byte_hi << ")";
    } else {
        o << space_name(r.space) << " core" << int(r.core) << " partitions [" << r.row_lo << "," << r.row_hi
          << ") bytes [" << r.byte_lo << "," << r.byte_hi << ")";
    }
    return o.str();
}

void DeviceMemory::out_of_range(const Region& r, uint32_t i) const {
    throw std::out_of_range("numerics: region " + describe_region(*trace_, r) + " row " + std::to_string(i) +
                            " lies outside its memory");
}

const uint8_t* DeviceMemory::row(const Region& r, uint32_t i) const {
    const uint64_t rr = uint64_t(r.row_lo) + i;
    if (r.space == Space::Hbm) {
        if (r.buffer >= hbm_.size()) out_of_range(r, i);
        const auto& t = trace_->tensor(r.buffer);
        if (rr >= t.rows || r.byte_hi > t.row_bytes || i >= r.rows()) out_of_range(r, i);
        if (pages_) return pages_->row(r.buffer, rr) + r.byte_lo;
        const uint8_t* base = borrowed_[r.buffer] ? borrowed_[r.buffer] : hbm_[r.buffer].data();
        return base + rr * t.row_bytes + r.byte_lo;
    }
    if (r.space == Space::Sbuf) {
        if (r.core >= sbuf_.size() || rr >= uint64_t(partitions_) || r.byte_hi > sbuf_bpp_ || i >= r.rows())
            out_of_range(r, i);
        return sbuf_[r.core].data() + rr * sbuf_bpp_ + r.byte_lo;
    }
    out_of_range(r, i);
}

uint8_t* DeviceMemory::row(const Region& r, uint32_t i) {
    // A lent image is read-only: borrow() lends only tensors no instruction writes.
    if (r.space == Space::Hbm && r.buffer < borrowed_.size() && borrowed_[r.buffer])
        throw std::logic_error("numerics: a write to the read-only input " + describe_region(*trace_, r));
    return const_cast<uint8_t*>(static_cast<const DeviceMemory*>(this)->row(r, i));
}

BNSIM_VECTOR_CLONES void load_elems(const uint8_t* src, DType dt, size_t n, float* out) {
    switch (dt) {
    case DType::fp32: std::memcpy(out, src, n * 4); return;
    case DType::bf16:
        for (size_t j = 0; j < n; ++j) {
            uint16_t h;
            std::memcpy(&h, src + 2 * j, 2);
            out[j] = bf16_to_f32(h);
        }
        return;
    case DType::u8:
        for (size_t j = 0; j < n; ++j) out[j] = float(src[j]);
        return;
    default: throw std::logic_error(std::string("numerics: ") + dtype_name(dt) + " is not modelled");
    }
}

BNSIM_VECTOR_CLONES void store_elems(const float* in, DType dt, size_t n, uint8_t* dst) {
    switch (dt) {
    case DType::fp32: std::memcpy(dst, in, n * 4); return;
    case DType::bf16:
        // f32_to_bf16 without its branch, so the loop vectorizes: round to nearest even, or
        // keep a NaN quiet.
        for (size_t j = 0; j < n; ++j) {
            uint32_t u;
            std::memcpy(&u, in + j, 4);
            const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
            const uint32_t quiet = (u >> 16) | 0x0040u;
            const uint16_t h = uint16_t(int32_t(u & 0x7fffffffu) > 0x7f800000 ? quiet : rounded);
            std::memcpy(dst + 2 * j, &h, 2);
        }
        return;
    case DType::u8:
        for (size_t j = 0; j < n; ++j) {
            const float v = std::nearbyint(in[j]);
            dst[j] = uint8_t(v <= 0 ? 0 : v >= 255 ? 255 : v);
        }
        return;
    default: throw std::logic_error(std::string("numerics: ") + dtype_name(dt) + " is not modelled");
    }
}

}  // namespace bnsim::num
