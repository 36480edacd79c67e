#include "numerics/hbm_io.h"

#include <algorithm>
#include <stdexcept>


namespace bnsim::num {

void put_tensor(DeviceMemory& mem, const Trace& t, const char* name, const float* data, size_t n) {
    const HbmTensor* h = t.find_tensor(name);
    if (!h) return;
    auto& bytes = mem.hbm(h->id);
    if (bytes.size() != n * size_t(dtype_size(h->dtype)))
        throw std::logic_error(std::string("numerics: input ") + name + " has " + std::to_string(n) +
                               " elements for a tensor of " + std::to_string(bytes.size()) + " bytes");
    store_elems(data, h->dtype, n, bytes.data());
}

void put_tensor(DeviceMemory& mem, const Trace& t, const char* name, const TypedArray& a) {
    const HbmTensor* h = t.find_tensor(name);
    if (!h) return;
    if (h->dtype == a.dtype && mem.borrow(h->id, a.bytes.data(), a.bytes.size())) return;
    auto& bytes = mem.hbm(h->id);
    if (bytes.size() != a.size() * size_t(dtype_size(h->dtype)))
        throw std::logic_error(std::string("numerics: input ") + name + " has " + std::to_string(a.size()) +
                               " elements for a tensor of " + std::to_string(bytes.size()) + " bytes");
    constexpr size_t kChunk = 1 << 14;
    std::vector<float> v(kChunk);
    for (size_t i = 0; i < a.size(); i += kChunk) {
        const size_t n = std::min(kChunk, a.size() - i);
        a.load(i, n, v.data());
        store_elems(v.data(), h->dtype, n, bytes.data() + i * size_t(dtype_size(h->dtype)));
    }
}

std::vector<float> get_tensor(const DeviceMemory& mem, const Trace& t, const char* name) {
    const HbmTensor* h = t.find_tensor(name);
    if (!h) throw std::logic_error(std::string("numerics: the trace has no output tensor ") + name);
    const auto& bytes = mem.hbm(h->id);
    std::vector<float> out(bytes.size() / size_t(dtype_size(h->dtype)));
    load_elems(bytes.data(), h->dtype, out.size(), out.data());
    return out;
}

}  // namespace bnsim::num
