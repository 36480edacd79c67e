#include "configfile/input_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <algorithm>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "configfile/config_error.h"

namespace bnsim {
namespace {

const char* kind_of(mode_t m) {
    if (S_ISDIR(m)) return "a directory";
    if (S_ISFIFO(m)) return "a FIFO";
    if (S_ISCHR(m) || S_ISBLK(m)) return "a device";
    if (S_ISSOCK(m)) return "a socket";
    return "not a regular file";
}

struct Fd {
    int fd;
    ~Fd() {
        if (fd >= 0) close(fd);
    }
};

}  // namespace

std::string byte_text(uint64_t bytes) {
    char buf[64];
    if (bytes < 1024) {
        std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
    } else if (bytes < kMiB) {
        std::snprintf(buf, sizeof buf, "%.1f KiB", double(bytes) / 1024);
    } else if (bytes < 1024 * kMiB) {
        std::snprintf(buf, sizeof buf, "%.1f MiB", double(bytes) / double(kMiB));
    } else {
        std::snprintf(buf, sizeof buf, "%.1f GiB", double(bytes) / double(1024 * kMiB));
    }
    return buf;
}

std::string excerpt(const std::string& s, size_t max) {
    std::string out;
    size_t i = 0;
    for (; i < s.size() && out.size() < max; ++i) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        if (c == '\n') {
            out += "\\n";
        } else if (c == '\t') {
            out += "\\t";
        } else if (c < 0x20 || c == 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
        } else {
            out += char(c);
        }
    }
    if (i < s.size()) {
        // Do not cut a UTF-8 character in two.
        while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0x80) out.pop_back();
        if (!out.empty() && static_cast<unsigned char>(out.back()) >= 0xC0) out.pop_back();
    }
    if (i < s.size()) out += "... (" + std::to_string(s.size()) + " characters)";
    return out;
}

bool is_regular_input(const std::string& path) {
    struct stat st;
    return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string read_input_file(const std::string& path, const std::string& what, uint64_t max_bytes) {
    // O_NONBLOCK: opening a FIFO with no writer would otherwise wait forever.
    Fd f{open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
    if (f.fd < 0) throw ConfigError(path + ": cannot open (" + std::strerror(errno) + "); expected " + what);
    struct stat st;
    if (fstat(f.fd, &st) != 0) throw ConfigError(path + ": cannot read (" + std::strerror(errno) + "); expected " + what);
    if (!S_ISREG(st.st_mode)) throw ConfigError(path + ": is " + std::string(kind_of(st.st_mode)) + "; expected " + what);
    if (uint64_t(st.st_size) > max_bytes)
        throw ConfigError(path + ": " + byte_text(uint64_t(st.st_size)) + "; expected " + what + " of at most " +
                          byte_text(max_bytes));
    std::string text(size_t(st.st_size), '\0');
    size_t got = 0;
    for (;;) {
        if (got == text.size()) {
            // The file may have grown since fstat: read on, but never past the limit. A small read
            // first, so the usual end of file costs no buffer twice the file's size.
            if (got > max_bytes) break;
            char more[512];
            const ssize_t n = read(f.fd, more, std::min<uint64_t>(sizeof more, max_bytes + 1 - got));
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) throw ConfigError(path + ": cannot read (" + std::strerror(errno) + "); expected " + what);
            if (n == 0) break;
            text.append(more, size_t(n));
            got += size_t(n);
            text.resize(std::min<uint64_t>(max_bytes + 1, std::max<uint64_t>(4096, text.size() * 2)));
        }
        const ssize_t n = read(f.fd, &text[got], text.size() - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw ConfigError(path + ": cannot read (" + std::strerror(errno) + "); expected " + what);
        if (n == 0) break;
        got += size_t(n);
    }
    text.resize(got);
    if (got > max_bytes)
        throw ConfigError(path + ": more than " + byte_text(max_bytes) + " (it grew while read); expected " + what +
                          " of at most " + byte_text(max_bytes));
    if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.erase(0, 3);
    return text;
}

}  // namespace bnsim
