#include "numerics/npy.h"

#include <cstring>
#include <fstream>
#include <sstream>

namespace bnsim::num {

const char* npy_type_name(NpyType t) {
    switch (t) {
    case NpyType::f32: return "<f4";
    case NpyType::u8: return "|u1";
    case NpyType::boolean: return "|b1";
    }
    return "?";
}

int64_t NpyArray::size() const {
    int64_t n = 1;
    for (auto d : shape) n *= d;
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

// Value of 'key' in the header dict, as raw text up to the next top-level comma or brace.
std::string dict_value(const std::string& path, const std::string& h, const std::string& key) {
    const std::string k = "'" + key + "'";
    auto p = h.find(k);
    if (p == std::string::npos) fail(path, "not a valid .npy file (header has no " + k + ")");
    p = h.find(':', p + k.size());
    if (p == std::string::npos) fail(path, "not a valid .npy file (malformed header)");
    ++p;
    while (p < h.size() && h[p] == ' ') ++p;
    size_t e = p;
    int depth = 0;
    for (; e < h.size(); ++e) {
        const char c = h[e];
        if (c == '(' || c == '[') ++depth;
        else if (c == ')' || c == ']') --depth;
        else if ((c == ',' || c == '}') && depth == 0) break;
    }
    return h.substr(p, e - p);
}

}  // namespace

NpyArray read_npy(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) fail(path, "cannot open file");
    char magic[8];
    if (!f.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0) fail(path, "not a .npy file (bad magic)");
    const int major = uint8_t(magic[6]);
    uint32_t hlen = 0;
    if (major == 1) {
        unsigned char b[2];
        if (!f.read(reinterpret_cast<char*>(b), 2)) fail(path, "truncated header");
        hlen = uint32_t(b[0]) | (uint32_t(b[1]) << 8);
    } else if (major == 2 || major == 3) {
        unsigned char b[4];
        if (!f.read(reinterpret_cast<char*>(b), 4)) fail(path, "truncated header");
        hlen = uint32_t(b[0]) | (uint32_t(b[1]) << 8) | (uint32_t(b[2]) << 16) | (uint32_t(b[3]) << 24);
    } else {
        fail(path, "unsupported .npy format version " + std::to_string(major));
    }
    std::string h(hlen, '\0');
    if (!f.read(&h[0], hlen)) fail(path, "truncated header");
    std::string descr = dict_value(path, h, "descr");
    const std::string order = dict_value(path, h, "fortran_order");
    const std::string shp = dict_value(path, h, "shape");
    if (order.find("False") == std::string::npos) fail(path, "Fortran-ordered arrays are not supported (save with C order)");
    NpyArray a;
    if (descr == "'<f4'" || descr == "'=f4'") a.type = NpyType::f32;
    else if (descr == "'|u1'" || descr == "'<u1'" || descr == "'=u1'") a.type = NpyType::u8;
    else if (descr == "'|b1'" || descr == "'?'" || descr == "'<b1'") a.type = NpyType::boolean;
    else fail(path, "dtype " + descr + " is not supported (float32, uint8 or bool expected)");
    // shape: "(a, b, )"
    std::string inner;
    for (char c : shp)
        if (c != '(' && c != ')' && c != ' ') inner += c;
    std::stringstream ss(inner);
    std::string tok;
    while (std::getline(ss, tok, ','))
        if (!tok.empty()) {
            try {
                a.shape.push_back(std::stoll(tok));
            } catch (...) {
                fail(path, "malformed shape " + shp);
            }
        }
    const int64_t n = a.size();
    if (n < 0) fail(path, "negative dimension in shape " + shp);
    const size_t bytes = size_t(n) * (a.type == NpyType::f32 ? 4 : 1);
    std::vector<char> buf(bytes);
    if (bytes && !f.read(buf.data(), std::streamsize(bytes)))
        fail(path, "truncated data: shape " + shape_str(a.shape) + " needs " + std::to_string(bytes) + " bytes");
    if (a.type == NpyType::f32) {
        a.f32.resize(size_t(n));
        std::memcpy(a.f32.data(), buf.data(), bytes);
    } else {
        a.u8.assign(buf.begin(), buf.end());
        if (a.type == NpyType::boolean)
            for (auto& v : a.u8) v = v ? 1 : 0;
    }
    return a;
}

namespace {

void write_raw(const std::string& path, const std::vector<int64_t>& shape, const char* descr, const void* data,
               size_t bytes) {
    std::ostringstream d;
    d << "{'descr': '" << descr << "', 'fortran_order': False, 'shape': (";
    for (size_t i = 0; i < shape.size(); ++i) d << shape[i] << (shape.size() == 1 || i + 1 < shape.size() ? ", " : "");
    d << "), }";
    std::string h = d.str();
    // Pad so that magic + length + header + '\n' is a multiple of 64 bytes.
    const size_t total = 10 + h.size() + 1;
    h.append((64 - total % 64) % 64, ' ');
    h += '\n';
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    if (!f) throw NpyError(path + ": cannot open for writing");
    f.write("\x93NUMPY\x01\x00", 8);
    const uint16_t hl = uint16_t(h.size());
    const char lb[2] = {char(hl & 0xff), char(hl >> 8)};
    f.write(lb, 2);
    f.write(h.data(), std::streamsize(h.size()));
    f.write(static_cast<const char*>(data), std::streamsize(bytes));
    if (!f) throw NpyError(path + ": write failed");
}

size_t count(const std::vector<int64_t>& shape) {
    size_t n = 1;
    for (auto d : shape) n *= size_t(d);
    return n;
}

}  // namespace

void write_npy(const std::string& path, const std::vector<int64_t>& shape, const float* data) {
    write_raw(path, shape, "<f4", data, count(shape) * 4);
}

void write_npy(const std::string& path, const std::vector<int64_t>& shape, const uint8_t* data, NpyType type) {
    write_raw(path, shape, type == NpyType::boolean ? "|b1" : "|u1", data, count(shape));
}

}  // namespace bnsim::num
