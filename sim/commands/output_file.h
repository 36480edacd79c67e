#pragma once
// Writes a file atomically: content goes to FILE.tmp, renamed over FILE only on success, so an
// error never leaves a half-written file behind.
#include <fstream>
#include <functional>
#include <string>

namespace bnsim {

void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write);

}  // namespace bnsim
