#pragma once
// A report field that may be absent: its value in JSON, or null. Shared by every report writer so
// "not known" is always spelled the same way (null, never a missing key or a sentinel number).
#include <cmath>
#include <optional>

#include <nlohmann/json.hpp>

namespace bnsim {

template <typename T>
nlohmann::ordered_json json_or_null(const std::optional<T>& v) {
    return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

// A time in ns kept as a double where NaN or infinity means "not known" (the tune report's
// convention): rounded to 1 ps, or null.
inline nlohmann::ordered_json ns_or_null(double ns) {
    return std::isfinite(ns) ? nlohmann::ordered_json(std::round(ns * 1000) / 1000) : nlohmann::ordered_json(nullptr);
}

}  // namespace bnsim
