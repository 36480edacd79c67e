#pragma once
// NumPy .npy files (format versions 1 to 3, little-endian, C order) for float32, uint8 and bool
// arrays: what `bnsim validate --inputs/--outputs` reads and writes. Errors name the file.
//
// Reading trusts nothing in the file: only regular files are opened (a FIFO or a device would
// block or never end), the header must be exactly numpy's dict of descr, fortran_order and
// shape, the shape's element and byte counts must not overflow, and the file's size must match
// the header exactly (no truncated data, no trailing bytes) before anything is allocated.
#include <cstdint>
#include <functional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace bnsim::num {

enum class NpyType { f32, u8, boolean };
const char* npy_type_name(NpyType t);  // numpy's descr: "<f4", "|u1", "|b1"

struct NpyHeader {
    NpyType type = NpyType::f32;
    std::vector<int64_t> shape;
    int64_t elements = 0;  // product of shape, checked
};

struct NpyArray {
    NpyType type = NpyType::f32;
    std::vector<int64_t> shape;
    std::vector<float> f32;   // when type == f32
    std::vector<uint8_t> u8;  // when type == u8 or boolean (0/1)
    int64_t size() const;     // product of shape; throws NpyError if it overflows
};

struct NpyError : std::runtime_error {
    explicit NpyError(const std::string& m) : std::runtime_error(m) {}
};

// check, if given, sees the header before the data is read (a shape or dtype the caller does
// not want is refused before allocating); it throws NpyError to refuse.
NpyArray read_npy(const std::string& path, const std::function<void(const NpyHeader&)>& check = {});

// Serializes an array as a version 1.0 .npy file (header padded to 64 bytes, as numpy does).
void write_npy(std::ostream& out, const std::vector<int64_t>& shape, const float* data);
void write_npy(std::ostream& out, const std::vector<int64_t>& shape, const uint8_t* data, NpyType type);

// One .npy file of a set (validate's inputs or outputs): its name and how to write it.
struct NpyFile {
    std::string name;
    std::function<void(std::ostream&)> write;
};

std::string shape_str(const std::vector<int64_t>& shape);

}  // namespace bnsim::num
