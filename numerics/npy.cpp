#include "numerics/npy.h"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <map>
#include <sstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace bnsim::num {

const char* npy_type_name(NpyType t) {
    switch (t) {
    case NpyType::f32: return "<f4";
    case NpyType::u8: return "|u1";
    case NpyType::boolean: return "|b1";
    }
    return "?";
}

namespace {

// Product of dims, or false if a dim is negative or the product exceeds int64.
bool checked_product(const std::vector<int64_t>& dims, int64_t& out) {
    int64_t n = 1;
    for (int64_t d : dims)
        if (d < 0 || __builtin_mul_overflow(n, d, &n)) return false;
    out = n;
    return true;
}

}  // namespace

int64_t NpyArray::size() const {
    int64_t n = 0;
    if (!checked_product(shape, n)) throw NpyError("shape " + shape_str(shape) + " has no valid element count");
    return n;
}

std::string shape_str(const std::vector<int64_t>& shape) {
    std::ostringstream o;
    o << "[";
    for (size_t i = 0; i < shape.size(); ++i) o << (i ? ", " : "") << shape[i];
    o << "]";
    return o.str();
}

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& m) { throw NpyError(path + ": " + m); }

// The header is a Python dict literal, e.g. {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// followed by spaces and a newline. This parses exactly that grammar and nothing looser.
class HeaderParser {
public:
    HeaderParser(const std::string& path, const std::string& text) : path_(path), s_(text) {}

    std::map<std::string, std::string> dict() {
        std::map<std::string, std::string> d;
        expect('{');
        while (true) {
            space();
            if (peek() == '}') break;
            const std::string key = quoted();
            space();
            expect(':');
            space();
            std::string value;
            if (peek() == '\'' || peek() == '"') value = "'" + quoted() + "'";
            else if (peek() == '(') value = tuple();
            else value = word();
            if (!d.emplace(key, value).second) bad("key '" + key + "' appears twice");
            space();
            if (peek() == ',') ++i_;
            else if (peek() != '}') bad("expected ',' or '}' after the value of '" + key + "'");
        }
        ++i_;
        while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t' || s_[i_] == '\0'))
            ++i_;
        if (i_ != s_.size()) bad("unexpected text after the header dict");
        return d;
    }

    // "(2, 3)" -> {2, 3}; each element a non-negative decimal integer.
    static std::vector<int64_t> dims(const std::string& path, const std::string& tuple) {
        std::vector<int64_t> out;
        size_t i = 1;
        auto sp = [&] { while (i < tuple.size() && tuple[i] == ' ') ++i; };
        while (true) {
            sp();
            if (tuple[i] == ')') break;
            if (!std::isdigit(static_cast<unsigned char>(tuple[i])))
                fail(path, "header shape " + tuple + " is not a tuple of non-negative integers");
            int64_t v = 0;
            while (i < tuple.size() && std::isdigit(static_cast<unsigned char>(tuple[i]))) {
                if (__builtin_mul_overflow(v, int64_t(10), &v) || __builtin_add_overflow(v, int64_t(tuple[i] - '0'), &v))
                    fail(path, "header shape " + tuple + " has a dimension beyond 2^63");
                ++i;
            }
            out.push_back(v);
            sp();
            if (tuple[i] == ',') ++i;
            else if (tuple[i] != ')') fail(path, "header shape " + tuple + " is not a tuple of non-negative integers");
        }
        return out;
    }

private:
    const std::string& path_;
    const std::string& s_;
    size_t i_ = 0;

    [[noreturn]] void bad(const std::string& m) { fail(path_, "not a valid .npy header: " + m); }
    char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
    void space() { while (peek() == ' ') ++i_; }
    void expect(char c) {
        if (peek() != c) bad(std::string("expected '") + c + "' at header byte " + std::to_string(i_));
        ++i_;
    }
    std::string quoted() {
        const char q = peek();
        if (q != '\'' && q != '"') bad("expected a quoted key or string at header byte " + std::to_string(i_));
        const size_t end = s_.find(q, i_ + 1);
        if (end == std::string::npos) bad("unterminated string");
        std::string v = s_.substr(i_ + 1, end - i_ - 1);
        i_ = end + 1;
        return v;
    }
    std::string tuple() {
        const size_t end = s_.find(')', i_);
        if (end == std::string::npos) bad("unterminated shape tuple");
        std::string v = s_.substr(i_, end - i_ + 1);
        i_ = end + 1;
        return v;
    }
    std::string word() {
        const size_t b = i_;
        while (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_') ++i_;
        if (b == i_) bad("unexpected character at header byte " + std::to_string(i_));
        return s_.substr(b, i_ - b);
    }
};

NpyHeader parse_header(const std::string& path, const std::string& text) {
    const auto d = HeaderParser(path, text).dict();
    for (const char* k : {"descr", "fortran_order", "shape"})
        if (!d.count(k)) fail(path, std::string("not a valid .npy header: no '") + k + "' key");
    if (d.size() != 3) fail(path, "not a valid .npy header: keys other than descr, fortran_order and shape");
    NpyHeader h;
    const std::string& descr = d.at("descr");
    if (descr == "'<f4'") h.type = NpyType::f32;
    else if (descr == "'|u1'" || descr == "'<u1'") h.type = NpyType::u8;
    else if (descr == "'|b1'" || descr == "'?'") h.type = NpyType::boolean;
    else if (descr == "'>f4'")
        fail(path, "dtype '>f4' is big-endian; expected little-endian float32 ('<f4'): save with arr.astype('<f4')");
    else fail(path, "dtype " + descr + " is not supported (float32 '<f4', uint8 '|u1' or bool '|b1' expected)");
    const std::string& order = d.at("fortran_order");
    if (order == "True") fail(path, "Fortran-ordered array; expected C order (save np.ascontiguousarray(arr))");
    if (order != "False") fail(path, "not a valid .npy header: fortran_order is " + order + ", expected True or False");
    const std::string& shp = d.at("shape");
    if (shp.empty() || shp[0] != '(') fail(path, "not a valid .npy header: shape " + shp + " is not a tuple");
    h.shape = HeaderParser::dims(path, shp);
    if (!checked_product(h.shape, h.elements))
        fail(path, "header shape " + shape_str(h.shape) + " has more elements than fit in 64 bits");
    return h;
}

// A descriptor that reads a regular file; anything else is refused before it could block.
int open_regular(const std::string& path, off_t& size) {
    const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) fail(path, std::string("cannot open (") + std::strerror(errno) + ")");
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        const bool dir = S_ISDIR(st.st_mode), fifo = S_ISFIFO(st.st_mode);
        close(fd);
        fail(path, std::string("is ") + (dir ? "a directory" : fifo ? "a FIFO" : "not a regular file") +
                       "; expected a .npy file");
    }
    size = st.st_size;
    return fd;
}

bool read_all(int fd, char* p, size_t n) {
    while (n > 0) {
        const ssize_t r = ::read(fd, p, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return false;
        p += r;
        n -= size_t(r);
    }
    return true;
}

struct Fd {
    int fd;
    ~Fd() { close(fd); }
};

}  // namespace

NpyArray read_npy(const std::string& path, const std::function<void(const NpyHeader&)>& check) {
    off_t file_size = 0;
    Fd f{open_regular(path, file_size)};
    char pre[12];
    if (file_size < 10 || !read_all(f.fd, pre, 8) || std::memcmp(pre, "\x93NUMPY", 6) != 0)
        fail(path, "not a .npy file (no \\x93NUMPY magic)");
    const int major = uint8_t(pre[6]);
    uint64_t hlen = 0, fixed = 0;
    if (major == 1) {
        if (!read_all(f.fd, pre + 8, 2)) fail(path, "truncated header");
        hlen = uint8_t(pre[8]) | (uint64_t(uint8_t(pre[9])) << 8);
        fixed = 10;
    } else if (major == 2 || major == 3) {
        if (!read_all(f.fd, pre + 8, 4)) fail(path, "truncated header");
        for (int i = 0; i < 4; ++i) hlen |= uint64_t(uint8_t(pre[8 + i])) << (8 * i);
        fixed = 12;
    } else {
        fail(path, "unsupported .npy format version " + std::to_string(major) + " (1, 2 or 3 expected)");
    }
    if (fixed + hlen > uint64_t(file_size))
        fail(path, "truncated header: it claims " + std::to_string(hlen) + " bytes but the file has " +
                       std::to_string(file_size) + " in all");
    std::string text(hlen, '\0');
    if (hlen && !read_all(f.fd, &text[0], hlen)) fail(path, "truncated header");
    const NpyHeader h = parse_header(path, text);
    const uint64_t item = h.type == NpyType::f32 ? 4 : 1;
    uint64_t bytes = 0;
    if (__builtin_mul_overflow(uint64_t(h.elements), item, &bytes))
        fail(path, "header shape " + shape_str(h.shape) + " needs more bytes than fit in 64 bits");
    const uint64_t have = uint64_t(file_size) - fixed - hlen;
    if (have < bytes)
        fail(path, "truncated data: header shape " + shape_str(h.shape) + " needs " + std::to_string(bytes) +
                       " bytes of data, the file has " + std::to_string(have));
    if (have > bytes)
        fail(path, std::to_string(have - bytes) + " bytes after the data of header shape " + shape_str(h.shape) +
                       " (" + std::to_string(bytes) + " bytes); expected the file to end there");
    if (check) check(h);

    NpyArray a;
    a.type = h.type;
    a.shape = h.shape;
    const size_t n = size_t(h.elements);
    if (a.type == NpyType::f32) {
        a.f32.resize(n);
        if (!read_all(f.fd, reinterpret_cast<char*>(a.f32.data()), bytes)) fail(path, "read failed (file changed?)");
    } else {
        a.u8.resize(n);
        if (!read_all(f.fd, reinterpret_cast<char*>(a.u8.data()), bytes)) fail(path, "read failed (file changed?)");
        if (a.type == NpyType::boolean)
            for (auto& v : a.u8) v = v ? 1 : 0;
    }
    return a;
}

namespace {

void write_raw(std::ostream& f, const std::vector<int64_t>& shape, const char* descr, const void* data, size_t bytes) {
    std::ostringstream d;
    d << "{'descr': '" << descr << "', 'fortran_order': False, 'shape': (";
    for (size_t i = 0; i < shape.size(); ++i) d << shape[i] << (shape.size() == 1 || i + 1 < shape.size() ? ", " : "");
    d << "), }";
    std::string h = d.str();
    // Pad so that magic + length + header + '\n' is a multiple of 64 bytes.
    const size_t total = 10 + h.size() + 1;
    h.append((64 - total % 64) % 64, ' ');
    h += '\n';
    f.write("\x93NUMPY\x01\x00", 8);
    const uint16_t hl = uint16_t(h.size());
    const char lb[2] = {char(hl & 0xff), char(hl >> 8)};
    f.write(lb, 2);
    f.write(h.data(), std::streamsize(h.size()));
    f.write(static_cast<const char*>(data), std::streamsize(bytes));
}

size_t count(const std::vector<int64_t>& shape) {
    size_t n = 1;
    for (auto d : shape) n *= size_t(d);
    return n;
}

}  // namespace

void write_npy(std::ostream& out, const std::vector<int64_t>& shape, const float* data) {
    write_raw(out, shape, "<f4", data, count(shape) * 4);
}

void write_npy(std::ostream& out, const std::vector<int64_t>& shape, const uint8_t* data, NpyType type) {
    write_raw(out, shape, type == NpyType::boolean ? "|b1" : "|u1", data, count(shape));
}

}  // namespace bnsim::num
