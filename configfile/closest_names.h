#pragma once
// "Did you mean": names near a misspelt one, for errors about unknown commands and hardware
// parameters. Nearness is the edit distance: the fewest single-character insertions, deletions
// and substitutions that turn one string into the other.
#include <cstddef>
#include <string>
#include <vector>

namespace bnsim {

size_t edit_distance(const std::string& a, const std::string& b);

// Up to n of `names`, nearest to `word` first; equally near names keep their given order.
std::vector<std::string> closest_names(const std::string& word, const std::vector<std::string>& names, size_t n);

}  // namespace bnsim
