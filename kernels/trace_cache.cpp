#include "kernels/trace_cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <stdexcept>

#include "trace/fnv1a64.h"
#include "trace/trace_image.h"

namespace bnsim {

namespace {

namespace fs = std::filesystem;

constexpr const char* kDirVariable = "BNSIM_COMMAND_TRACES";
constexpr const char* kCacheVariable = "BNSIM_TRACE_CACHE";
constexpr char kEntryMagic[8] = {'b', 'n', 's', 'i', 'm', 'T', 'C', '1'};
// The folder keeps the entries used most recently, this many and this many bytes at most (W2's
// entry is about 6 MB).
constexpr size_t kMaxEntries = 64;
constexpr uintmax_t kMaxBytes = uintmax_t(1) << 30;

// The folder across commands, made if missing; "" when off or when it cannot be made.
std::string persistent_dir() {
    std::string d;
    const char* e = std::getenv(kCacheVariable);
    if (e && std::string(e) == "off") return "";
    if (e && *e) {
        d = e;
    } else if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x == '/') {
        d = std::string(x) + "/bnsim/traces";
    } else if (const char* h = std::getenv("HOME"); h && *h == '/') {
        d = std::string(h) + "/.cache/bnsim/traces";
    } else {
        return "";
    }
    std::error_code ec;
    fs::create_directories(d, ec);
    if (ec || access(d.c_str(), R_OK | W_OK | X_OK) != 0) return "";  // not usable: as with off
    const fs::path whole = fs::absolute(d, ec);  // a relative BNSIM_TRACE_CACHE, from here on
    return ec ? "" : whole.string();
}

std::string& dir() {
    // A parent's shared folder first (a bnsim process it started); else the folder across commands.
    static std::string d = [] {
        const char* e = std::getenv(kDirVariable);
        return e && *e ? std::string(e) : persistent_dir();
    }();
    return d;
}

// The bnsim binary that writes and reads the entries: its images are only for itself
// (trace/trace_image.h), so every build keys its own.
const std::string& binary_identity() {
    static const std::string id = [] {
        struct stat st {};
        if (stat("/proc/self/exe", &st) != 0) return std::string("unknown binary ") + std::to_string(getpid());
        return std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino) + ":" + std::to_string(st.st_size) + ":" +
               std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
    }();
    return id;
}

std::string entry_path(const std::string& full_key) {
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fnv1a64(full_key)));
    return dir() + "/" + hex + ".kernel";
}

// A regular file of a sane size, read whole in one piece (not through stream iterators: W2's
// 3.4 MB entry took 6 ms so); nullopt for anything else (a FIFO must not hang a lookup).
std::optional<std::string> read_regular(const std::string& path) {
    std::error_code ec;
    if (!fs::is_regular_file(fs::status(path, ec)) || ec || fs::file_size(path, ec) > kMaxBytes || ec)
        return std::nullopt;
    std::ifstream f(path, std::ios::binary | std::ios::ate);
    if (!f) return std::nullopt;
    const std::streamoff size = f.tellg();
    if (size < 0) return std::nullopt;
    std::string s(size_t(size), '\0');
    f.seekg(0);
    if (!f.read(s.data(), size)) return std::nullopt;
    return s;
}

void put_u64(std::string& out, uint64_t v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); }
void put_text(std::string& out, const std::string& s) {
    put_u64(out, s.size());
    out += s;
}

// Reads an entry's head (magic, key, files) from `in` at `at`; false if it is not one.
bool take_u64(std::string_view in, size_t& at, uint64_t& v) {
    if (in.size() - at < sizeof v) return false;
    std::memcpy(&v, in.data() + at, sizeof v);
    at += sizeof v;
    return true;
}
bool take_text(std::string_view in, size_t& at, std::string& s) {
    uint64_t n = 0;
    if (!take_u64(in, at, n) || n > in.size() - at) return false;
    s.assign(in.substr(at, size_t(n)));
    at += size_t(n);
    return true;
}

// Keeps the folder within its bounds, the entries used longest ago going first.
void trim_folder() {
    struct Entry {
        fs::file_time_type when;
        uintmax_t bytes;
        fs::path path;
    };
    std::vector<Entry> entries;
    std::error_code ec;
    const auto stale = fs::file_time_type::clock::now() - std::chrono::hours(1);
    for (fs::directory_iterator it(dir(), ec), end; !ec && it != end; it.increment(ec)) {
        std::error_code e1, e2;
        if (it->path().extension() != ".kernel") {
            // A temporary entry left by a writer that died an hour ago or more.
            if (it->path().filename().string().find(".kernel.tmp.") != std::string::npos &&
                it->last_write_time(e1) < stale && !e1)
                fs::remove(it->path(), e2);
            continue;
        }
        const auto when = it->last_write_time(e1);
        const auto bytes = it->file_size(e2);
        if (!e1 && !e2) entries.push_back({when, bytes, it->path()});
    }
    uintmax_t total = 0;
    for (const auto& e : entries) total += e.bytes;
    if (entries.size() <= kMaxEntries && total <= kMaxBytes) return;
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.when < b.when; });
    size_t left = entries.size();
    for (const auto& e : entries) {
        if (left <= kMaxEntries && total <= kMaxBytes) break;
        fs::remove(e.path, ec);
        total -= e.bytes;
        --left;
    }
}

struct Remembered {
    std::mutex mu;
    std::deque<std::pair<std::string, std::shared_ptr<const GeneratedKernel>>> kernels;
    size_t instructions = 0;
    size_t max_kernels = kRememberedKernels, max_instructions = kRememberedInstructions;

    // The oldest go first; the newest stays even if it alone is over the budget. Holds mu.
    void trim() {
        while (kernels.size() > 1 && (kernels.size() > max_kernels || instructions > max_instructions)) {
            instructions -= kernels.front().second->trace.size();
            kernels.pop_front();
        }
    }
};

Remembered& remembered() {
    static Remembered* r = new Remembered;  // never destroyed: freeing it at exit buys nothing
    return *r;
}

// The kernel kept under `key`, or nullptr; the caller holds r.mu.
std::shared_ptr<const GeneratedKernel> find_remembered(const Remembered& r, const std::string& key) {
    for (const auto& [k, g] : r.kernels)
        if (k == key) return g;
    return nullptr;
}

}  // namespace

std::shared_ptr<const GeneratedKernel> remembered_kernel(const std::string& key) {
    Remembered& r = remembered();
    std::lock_guard<std::mutex> lock(r.mu);
    return find_remembered(r, key);
}

bool is_remembered(const std::string& key) {
    Remembered& r = remembered();
    std::lock_guard<std::mutex> lock(r.mu);
    return find_remembered(r, key) != nullptr;
}

void remember_kernel(const std::string& key, std::shared_ptr<const GeneratedKernel> k) {
    Remembered& r = remembered();
    std::lock_guard<std::mutex> lock(r.mu);
    if (find_remembered(r, key)) return;
    r.instructions += k->trace.size();
    r.kernels.emplace_back(key, std::move(k));
    r.trim();
}

void set_remembered_budget(size_t kernels, size_t instructions) {
    Remembered& r = remembered();
    std::lock_guard<std::mutex> lock(r.mu);
    r.max_kernels = kernels;
    r.max_instructions = instructions;
    r.trim();
}

std::optional<uint64_t> file_contents_hash(const std::string& path) {
    const auto s = read_regular(path);
    if (!s) return std::nullopt;
    return fnv1a64(*s);
}

const std::string& trace_cache_dir() { return dir(); }
void set_trace_cache_dir(std::string d) {
    dir() = std::move(d);
    if (dir().empty()) unsetenv(kDirVariable);
    else setenv(kDirVariable, dir().c_str(), 1);
}

std::optional<TraceFile> cached_trace(const std::string& key) {
    if (dir().empty()) return std::nullopt;
    const std::string full_key = binary_identity() + "\n" + key;
    const std::string path = entry_path(full_key);
    const auto bytes = read_regular(path);
    if (!bytes || bytes->size() < sizeof kEntryMagic || std::memcmp(bytes->data(), kEntryMagic, sizeof kEntryMagic) != 0)
        return std::nullopt;
    const std::string_view in(*bytes);
    size_t at = sizeof kEntryMagic;
    std::string stored_key;
    uint64_t files = 0;
    if (!take_text(in, at, stored_key) || stored_key != full_key || !take_u64(in, at, files)) return std::nullopt;
    for (uint64_t k = 0; k < files; ++k) {
        std::string file;
        uint64_t hash = 0;
        if (!take_text(in, at, file) || !take_u64(in, at, hash)) return std::nullopt;
        if (file_contents_hash(file) != hash) return std::nullopt;  // edited (or gone) since: traced again
    }
    auto tf = read_trace_image(in.substr(at));
    if (tf) {
        tf->trace.deps_derived = true;  // kept derived (put_cached_trace refuses others)
        std::error_code ec;
        fs::last_write_time(path, fs::file_time_type::clock::now(), ec);  // used now: kept longer
    }
    return tf;
}

void put_cached_trace(const std::string& key, const TraceFile& tf, const std::vector<std::string>& files) {
    if (!tf.trace.deps_derived) throw std::logic_error("put_cached_trace: a trace is kept with its dependencies derived");
    if (dir().empty()) return;
    const std::string full_key = binary_identity() + "\n" + key;
    std::string out(kEntryMagic, sizeof kEntryMagic);
    put_text(out, full_key);
    put_u64(out, files.size());
    for (const auto& f : files) {
        const auto h = file_contents_hash(f);
        if (!h) return;  // a file it was made from cannot be read back: nothing to check it by
        put_text(out, f);
        put_u64(out, *h);
    }
    out += trace_image(tf);
    // This writer's own temporary name, then one rename: two processes keeping the same trace
    // at once write the same bytes, and a reader sees one whole entry or none.
    const std::string path = entry_path(full_key), tmp = path + ".tmp." + std::to_string(getpid());
    {
        std::ofstream f(tmp, std::ios::binary);
        f.write(out.data(), std::streamsize(out.size()));
        f.close();
        if (!f) {
            std::remove(tmp.c_str());
            return;
        }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        std::remove(tmp.c_str());
        return;
    }
    trim_folder();
}

}  // namespace bnsim
