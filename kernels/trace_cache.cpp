#include "kernels/trace_cache.h"

#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>

#include <unistd.h>

namespace bnsim {

namespace {

std::string& dir() {
    static std::string d;
    return d;
}

// `<hash>.trace` holds the trace and `<hash>.key` the full key it was made for: a hash collision
// reads as a miss, never as another kernel's trace.
std::string stem(const std::string& key) {
    std::ostringstream s;
    s << dir() << "/" << std::hex << std::hash<std::string>{}(key);
    return s.str();
}

std::optional<std::string> read_all(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) return std::nullopt;
    return std::string(std::istreambuf_iterator<char>(f), {});
}

}  // namespace

const std::string& trace_cache_dir() { return dir(); }
void set_trace_cache_dir(std::string d) { dir() = std::move(d); }

std::optional<std::string> cached_trace(const std::string& key) {
    if (dir().empty()) return std::nullopt;
    const std::string s = stem(key);
    const auto k = read_all(s + ".key");
    if (!k || *k != key) return std::nullopt;
    std::ifstream f(s + ".trace");
    return f ? std::optional<std::string>(s + ".trace") : std::nullopt;
}

void put_cached_trace(const std::string& key, const std::string& file) {
    if (dir().empty()) return;
    const std::string s = stem(key);
    // The key first, then the trace: a reader that finds the trace finds its key beside it. Two
    // children tracing the same kernel at once write the same bytes.
    const std::string tmp = s + ".key." + std::to_string(getpid());  // this writer's own
    {
        std::ofstream f(tmp, std::ios::binary);
        f << key;
        if (!f) {
            std::remove(tmp.c_str());
            return;
        }
    }
    if (std::rename(tmp.c_str(), (s + ".key").c_str()) != 0) {
        std::remove(tmp.c_str());
        return;
    }
    std::rename(file.c_str(), (s + ".trace").c_str());
}

}  // namespace bnsim
