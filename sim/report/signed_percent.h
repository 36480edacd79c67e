#pragma once
// A signed percentage for tables, "+1.2%" / "-3.4%", with one decimal. The sign is that of the
// figure as printed, so a change that rounds to zero reads "+0.0%" (never "+-0.0%" or "-0.0%").
#include <cmath>
#include <cstdio>
#include <string>

namespace bnsim {

inline std::string signed_percent(double pct) {
    double r = std::round(pct * 10) / 10;
    if (r == 0) r = 0;  // -0.0 too
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+.1f%%", r);
    return buf;
}

}  // namespace bnsim
