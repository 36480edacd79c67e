#include "configfile/closest_names.h"

#include <algorithm>
#include <utility>

namespace bnsim {

size_t edit_distance(const std::string& a, const std::string& b) {
    // One row of the dynamic-programming table at a time.
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
            diag = up;
        }
    }
    return row[b.size()];
}

std::vector<std::string> closest_names(const std::string& word, const std::vector<std::string>& names, size_t n) {
    std::vector<std::pair<size_t, std::string>> d;
    for (const auto& name : names) d.emplace_back(edit_distance(word, name), name);
    std::stable_sort(d.begin(), d.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    std::vector<std::string> out;
    for (size_t i = 0; i < d.size() && i < n; ++i) out.push_back(d[i].second);
    return out;
}

}  // namespace bnsim
