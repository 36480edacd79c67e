#pragma once
// Element types that appear in a trace. Sizes are the storage size in SBUF/HBM.
#include <cstdint>
#include <optional>
#include <string>

namespace bnsim {

enum class DType : uint8_t { bf16, fp32, u8 };

inline int dtype_size(DType t) {
    switch (t) {
    case DType::bf16: return 2;
    case DType::fp32: return 4;
    case DType::u8: return 1;
    }
    return 0;
}

inline const char* dtype_name(DType t) {
    switch (t) {
    case DType::bf16: return "bfloat16";
    case DType::fp32: return "float32";
    case DType::u8: return "uint8";
    }
    return "?";
}

inline std::optional<DType> dtype_from_name(const std::string& s) {
    if (s == "bfloat16" || s == "bf16") return DType::bf16;
    if (s == "float32" || s == "fp32") return DType::fp32;
    if (s == "uint8" || s == "u8") return DType::u8;
    return std::nullopt;
}

}  // namespace bnsim
