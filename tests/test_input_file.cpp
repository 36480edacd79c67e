// read_input_file, the one reader of user files: the whole text, whatever its length against the
// reader's buffers; a file over its limit refused, whether its size says so or it grows while
// read (a /proc file reports size 0); a byte-order mark dropped.
#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>
#include <string>

#include "configfile/config_error.h"
#include "configfile/input_file.h"
#include "test_util.h"

using namespace bnsim;

namespace {

std::string patterned(size_t n) {
    std::string s(n, '\0');
    for (size_t i = 0; i < n; ++i) s[i] = char('a' + (i * 7 + i / 13) % 26);
    return s;
}

std::string refusal(const std::string& path, uint64_t max_bytes) {
    try {
        read_input_file(path, "a test file", max_bytes);
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("input file: the whole text at every length around the reader's buffers", "[input_file]") {
    for (size_t n : {size_t(0), size_t(1), size_t(511), size_t(512), size_t(513), size_t(1024), size_t(4095),
                     size_t(4096), size_t(4097), size_t(70001)}) {
        const std::string body = patterned(n);
        const std::string path = test::write_temp_file("bnsim-input-file", "f" + std::to_string(n), body);
        CHECK(read_input_file(path, "a test file", kMaxConfigBytes) == body);
        // A limit of exactly the file's size takes it; one byte less refuses it before reading.
        CHECK(read_input_file(path, "a test file", n) == body);
        if (n > 0) CHECK(refusal(path, n - 1).find("expected a test file of at most") != std::string::npos);
    }
}

TEST_CASE("input file: a byte-order mark is dropped", "[input_file]") {
    const std::string path = test::write_temp_file("bnsim-input-file", "bom", "\xEF\xBB\xBF" "a: 1\n");
    CHECK(read_input_file(path, "a test file", 100) == "a: 1\n");
}

TEST_CASE("input file: a file whose size says 0 is read to its end, and stops at the limit", "[input_file]") {
    // /proc/cpuinfo: a regular file that reports size 0 and holds several KiB, the same each read.
    const std::string path = "/proc/cpuinfo";
    std::ifstream f(path, std::ios::binary);
    const std::string want((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (want.size() < 1024) test::skip_test("/proc/cpuinfo is missing or shorter than 1 KiB here");
    CHECK(read_input_file(path, "a test file", kMaxConfigBytes) == want);
    // The limit below its length: refused as a file that grew while read, never more read than that.
    CHECK(refusal(path, 100).find("more than 100 B (it grew while read)") != std::string::npos);
    CHECK(refusal(path, 600).find("more than 600 B (it grew while read)") != std::string::npos);
    CHECK(read_input_file(path, "a test file", want.size()) == want);
}
