#include "kernels/trace_cache.h"

#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <functional>
#include <iterator>
#include <mutex>
#include <sstream>

#include <unistd.h>

namespace bnsim {

namespace {

constexpr const char* kDirVariable = "BNSIM_COMMAND_TRACES";

std::string& dir() {
    static std::string d = [] {
        const char* e = std::getenv(kDirVariable);
        return std::string(e ? e : "");
    }();
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

// At most this many kernels in memory (W2's is ~5 MB).
constexpr size_t kRemembered = 8;

struct Remembered {
    std::mutex mu;
    std::deque<std::pair<std::string, GeneratedKernel>> kernels;
};

Remembered& remembered() {
    static Remembered* r = new Remembered;  // never destroyed: freeing it at exit buys nothing
    return *r;
}

// The kernel kept under `key`, or nullptr; the caller holds r.mu.
const GeneratedKernel* find_remembered(const Remembered& r, const std::string& key) {
    for (const auto& [k, g] : r.kernels)
        if (k == key) return &g;
    return nullptr;
}

}  // namespace

std::optional<GeneratedKernel> remembered_kernel(const std::string& key) {
    Remembered& r = remembered();
    std::lock_guard<std::mutex> lock(r.mu);
    if (const GeneratedKernel* g = find_remembered(r, key)) return *g;
    return std::nullopt;
}

bool is_remembered(const std::string& key) {
    Remembered& r = remembered();
    std::lock_guard<std::mutex> lock(r.mu);
    return find_remembered(r, key) != nullptr;
}

void remember_kernel(const std::string& key, const GeneratedKernel& k) {
    Remembered& r = remembered();
    std::lock_guard<std::mutex> lock(r.mu);
    if (find_remembered(r, key)) return;
    if (r.kernels.size() >= kRemembered) r.kernels.pop_front();
    r.kernels.emplace_back(key, k);
}

const std::string& trace_cache_dir() { return dir(); }
void set_trace_cache_dir(std::string d) {
    dir() = std::move(d);
    if (dir().empty()) unsetenv(kDirVariable);
    else setenv(kDirVariable, dir().c_str(), 1);
}

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
