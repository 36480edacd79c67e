#pragma once
// Element types that appear in a trace. Sizes are the storage size in SBUF/HBM.
#include <cstdint>
#include <optional>
#include <string>

namespace bnsim {

// fp16 and i32 appear only in traced NKI kernels (matmul inputs, iota indices); the C++ kernels
// and the numerics use bf16, fp32 and u8.
enum class DType : uint8_t { bf16, fp32, u8, fp16, i32 };

inline int dtype_size(DType t) {
    switch (t) {
    case DType::bf16: return 2;
    case DType::fp32: return 4;
    case DType::u8: return 1;
    case DType::fp16: return 2;
    case DType::i32: return 4;
    }
    return 0;
}

inline const char* dtype_name(DType t) {
    switch (t) {
    case DType::bf16: return "bfloat16";
    case DType::fp32: return "float32";
    case DType::u8: return "uint8";
    case DType::fp16: return "float16";
    case DType::i32: return "int32";
    }
    return "?";
}

inline std::optional<DType> dtype_from_name(const std::string& s) {
    if (s == "bfloat16" || s == "bf16") return DType::bf16;
    if (s == "float32" || s == "fp32") return DType::fp32;
    if (s == "uint8" || s == "u8") return DType::u8;
    if (s == "float16" || s == "fp16") return DType::fp16;
    if (s == "int32" || s == "i32") return DType::i32;
    return std::nullopt;
}

}  // namespace bnsim
