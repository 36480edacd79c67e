#pragma once
// Numbers a user typed (command-line options, values inside them such as --range NAME=LO:HI),
// parsed one way: the whole text is a decimal number, finite ("nan", "inf", hex floats, "10abc"
// and overflow are refused), and printed back briefly (shortest round-trip form, never the
// 310 digits of the largest double).
#include <optional>
#include <string>

namespace bnsim {

std::optional<double> parse_real(const std::string& text);

// Shortest text that reads back as the same double: 1e+07 -> "10000000", 0.1 -> "0.1".
std::string short_number(double v);

// "(0, 86400]", "[1, 256]".
std::string range_text(double lo, double hi, bool lo_open = false);

}  // namespace bnsim
