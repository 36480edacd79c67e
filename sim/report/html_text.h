#pragma once
// Text placed in bnsim's self-contained HTML reports (sweep, compare, sensitivity): the
// characters HTML gives meaning escaped, so labels and config values show as written.
#include <string>

namespace bnsim {

inline std::string html_escape(const std::string& s) {
    std::string o;
    o.reserve(s.size());
    for (char c : s) {
        switch (c) {
            case '&': o += "&amp;"; break;
            case '<': o += "&lt;"; break;
            case '>': o += "&gt;"; break;
            case '"': o += "&quot;"; break;
            default: o += c;
        }
    }
    return o;
}

}  // namespace bnsim
