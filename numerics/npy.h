#pragma once
// NumPy .npy files (format versions 1 to 3, little-endian, C order) for float32, uint8 and bool
// arrays: what `bnsim validate --inputs/--outputs` reads and writes. Errors name the file.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace bnsim::num {

enum class NpyType { f32, u8, boolean };
const char* npy_type_name(NpyType t);  // numpy's descr: "<f4", "|u1", "|b1"

struct NpyArray {
    NpyType type = NpyType::f32;
    std::vector<int64_t> shape;
    std::vector<float> f32;   // when type == f32
    std::vector<uint8_t> u8;  // when type == u8 or boolean (0/1)
    int64_t size() const;
};

struct NpyError : std::runtime_error {
    explicit NpyError(const std::string& m) : std::runtime_error(m) {}
};

NpyArray read_npy(const std::string& path);
void write_npy(const std::string& path, const std::vector<int64_t>& shape, const float* data);
void write_npy(const std::string& path, const std::vector<int64_t>& shape, const uint8_t* data, NpyType type);

std::string shape_str(const std::vector<int64_t>& shape);

}  // namespace bnsim::num
