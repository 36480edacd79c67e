#pragma once
// Numbers as report text with a fixed number of decimals, shared by the text and HTML reports so
// every table rounds the same way.
#include <cmath>
#include <cstdio>
#include <string>

namespace bnsim {

// v with `decimals` digits after the point ("%.*f"): fixed_decimals(586.04, 1) is "586.0".
inline std::string fixed_decimals(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

// A signed percentage for tables, "+1.2%" / "-3.4%", with one decimal. The sign is that of the
// figure as printed, so a change that rounds to zero reads "+0.0%" (never "+-0.0%" or "-0.0%").
inline std::string signed_percent(double pct) {
    double r = std::round(pct * 10) / 10;
    if (r == 0) r = 0;  // -0.0 too
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+.1f%%", r);
    return buf;
}

}  // namespace bnsim
