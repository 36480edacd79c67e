#pragma once
// A large array held in the dtype a kernel reads it in (bf16 or fp32 bytes, exactly as its HBM
// tensor holds it) instead of as an fp32 copy: half the memory for bf16 data, and the bytes can
// serve as the HBM image itself (DeviceMemory::borrow).
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "numerics/bf16.h"
#include "numerics/buffer.h"
#include "numerics/device_memory.h"
#include "trace/dtype.h"

namespace bnsim::num {

struct TypedArray {
    DType dtype = DType::fp32;
    BigVector<uint8_t> bytes;

    TypedArray() = default;
    TypedArray(DType dt, size_t n) : dtype(dt) { bytes.resize(n * elem_bytes()); }

    size_t elem_bytes() const { return size_t(dtype_size(dtype)); }
    size_t size() const { return bytes.size() / elem_bytes(); }
    bool empty() const { return bytes.empty(); }
    // Element i as fp32 (exact: every bf16 value is an fp32 value).
    float operator[](size_t i) const {
        if (dtype == DType::bf16) {
            uint16_t h;
            std::memcpy(&h, bytes.data() + 2 * i, 2);
            return bf16_to_f32(h);
        }
        if (dtype == DType::u8) return float(bytes[i]);
        float v;
        std::memcpy(&v, bytes.data() + 4 * i, 4);
        return v;
    }
    // Elements [i0, i0 + n) as fp32 into out.
    void load(size_t i0, size_t n, float* out) const { load_elems(bytes.data() + i0 * elem_bytes(), dtype, n, out); }
    // Stores n fp32 values from element i0 on, rounded to the dtype (nearest-even).
    void store(size_t i0, size_t n, const float* in) { store_elems(in, dtype, n, bytes.data() + i0 * elem_bytes()); }
};

}  // namespace bnsim::num
