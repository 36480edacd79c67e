#include "numerics/device_memory.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "numerics/bf16.h"

namespace bnsim::num {

DeviceMemory::DeviceMemory(const Trace& trace, int partitions, uint64_t bpp)
    : trace_(&trace), partitions_(partitions), sbuf_bpp_(bpp) {
    sbuf_.resize(size_t(std::max(trace.num_cores, 1)));
    // Memory nobody wrote reads as NaN (all-ones bytes in bf16 and fp32), so a read of a slot
    // that was never filled shows up in the results instead of passing as zeros. Inputs are
    // left for the loader to fill (see DeviceMemory's users).
    for (auto& s : sbuf_) s.assign(size_t(partitions) * bpp, 0xff);
    for (const auto& t : trace.tensors()) {
        hbm_.emplace_back();
        if (t.is_input) hbm_.back().resize(size_t(t.bytes()));  // written by the loader
        else hbm_.back().assign(size_t(t.bytes()), 0xff);
    }
}

uint64_t DeviceMemory::bytes_needed(const Trace& trace, int partitions, uint64_t bpp) {
    uint64_t n = uint64_t(std::max(trace.num_cores, 1)) * uint64_t(partitions) * bpp;
    for (const auto& t : trace.tensors()) n += t.bytes();
    return n;
}

uint64_t DeviceMemory::allocated_bytes() const {
    uint64_t n = 0;
    for (const auto& s : sbuf_) n += s.size();
    for (const auto& h : hbm_) n += h.size();
    return n;
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
        return hbm_[r.buffer].data() + rr * t.row_bytes + r.byte_lo;
    }
    if (r.space == Space::Sbuf) {
        if (r.core >= sbuf_.size() || rr >= uint64_t(partitions_) || r.byte_hi > sbuf_bpp_ || i >= r.rows())
            out_of_range(r, i);
        return sbuf_[r.core].data() + rr * sbuf_bpp_ + r.byte_lo;
    }
    out_of_range(r, i);
}

uint8_t* DeviceMemory::row(const Region& r, uint32_t i) {
    return const_cast<uint8_t*>(static_cast<const DeviceMemory*>(this)->row(r, i));
}

void load_elems(const uint8_t* src, DType dt, size_t n, float* out) {
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
    }
}

void store_elems(const float* in, DType dt, size_t n, uint8_t* dst) {
    switch (dt) {
    case DType::fp32: std::memcpy(dst, in, n * 4); return;
    case DType::bf16:
        for (size_t j = 0; j < n; ++j) {
            const uint16_t h = f32_to_bf16(in[j]);
            std::memcpy(dst + 2 * j, &h, 2);
        }
        return;
    case DType::u8:
        for (size_t j = 0; j < n; ++j) {
            const float v = std::nearbyint(in[j]);
            dst[j] = uint8_t(v <= 0 ? 0 : v >= 255 ? 255 : v);
        }
        return;
    }
}

}  // namespace bnsim::num
