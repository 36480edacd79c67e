#pragma once
// The time a unit was busy when its activities overlap: the total length of the union of their
// [start, end) intervals. Used for simulated DMA queues, a profile's DMA activity and the profile
// tables bnsim writes, so measured and simulated busy times are counted alike.
#include <algorithm>
#include <utility>
#include <vector>

namespace bnsim {

inline double interval_union_length(std::vector<std::pair<double, double>> spans) {
    std::sort(spans.begin(), spans.end());
    double total = 0, s = 0, e = 0;
    bool open = false;
    for (const auto& [a, b] : spans) {
        if (!open || a > e) {
            if (open && e > s) total += e - s;
            s = a;
            e = b;
            open = true;
        } else {
            e = std::max(e, b);
        }
    }
    if (open && e > s) total += e - s;
    return total;
}

}  // namespace bnsim
