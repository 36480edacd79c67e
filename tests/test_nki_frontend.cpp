// The NKI frontend and trace files end to end, through the real binary: an NKI kernel's trace
// against the C++ generator of the same kernel (two implementations checking each other), a
// dump read back as `kernel: trace`, and the Tensor engine's prices against their closed forms
// and W1's profile.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_run.h"
#include "test_util.h"

using namespace bnsim::test;
using json = nlohmann::json;

namespace {

const std::string kRoot = BNSIM_SOURCE_DIR;

std::vector<json> read_lines(const std::string& path) {
    std::ifstream f(path);
    std::vector<json> out;
    std::string line;
    while (std::getline(f, line)) out.push_back(json::parse(line));
    return out;
}

std::vector<json> dump(const std::string& config, const std::vector<std::string>& sets, const std::string& path) {
    std::vector<std::string> args = {"trace", config, "--dump", path};
    for (const auto& s : sets) args.insert(args.end(), {"--set", s});
    const CliResult r = run_bnsim(args, CliOptions{120, "", 0});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return read_lines(path);
}

json run_json(const std::string& config, const std::vector<std::string>& sets = {}) {
    std::vector<std::string> args = {"run", config, "--json"};
    for (const auto& s : sets) args.insert(args.end(), {"--set", s});
    const CliResult r = run_bnsim(args, CliOptions{120, "", 0});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return json::parse(r.out);
}

// What two implementations of one kernel must agree on: everything but the tags (their texts
// and source locations differ by construction), the derived edges and the cost-row annotation.
json comparable(json ins) {
    ins.erase("tag");
    ins.erase("deps");
    ins.erase("cost_row");
    return ins;
}

json tensors_of(const json& header) {
    json t = header.at("tensors");
    return t;
}

void same_stream(const std::vector<json>& a, const std::vector<json>& b) {
    REQUIRE(a.size() == b.size());
    CHECK(tensors_of(a[0]) == tensors_of(b[0]));
    CHECK(a[0]["cores"] == b[0]["cores"]);
    for (size_t i = 1; i < a.size(); ++i) {
        INFO("instruction " << i - 1);
        REQUIRE(comparable(a[i]) == comparable(b[i]));
    }
}

}  // namespace

TEST_CASE("the NKI vector_add traces the C++ vector_add's stream instruction for instruction") {
    const std::string dir = make_temp_dir("bnsim_nki_vadd");
    const std::string nki_cfg = kRoot + "/configs/nki/vector_add.yaml";
    for (int free : {2, 200}) {
        const std::string cpp_cfg = kRoot + "/configs/calibration/m4_vector_add_free" + std::to_string(free) + ".yaml";
        INFO("free " << free);
        const auto cpp = dump(cpp_cfg, {}, dir + "/cpp.jsonl");
        const auto nki = dump(nki_cfg, {"nki.args.free=" + std::to_string(free)}, dir + "/nki.jsonl");
        same_stream(cpp, nki);
        // Same stream, same models: the same latency to the picosecond.
        CHECK(run_json(cpp_cfg)["latency_ns"] == run_json(nki_cfg, {"nki.args.free=" + std::to_string(free)})["latency_ns"]);
    }
    // Every instruction names the kernel file's line that issued it.
    const auto nki = read_lines(dir + "/nki.jsonl");
    const auto ends_with = [](const json& s, const std::string& tail) {
        const std::string v = s.get<std::string>();
        return v.size() >= tail.size() && v.compare(v.size() - tail.size(), tail.size(), tail) == 0;
    };
    CHECK(ends_with(nki[1]["tag"]["nki_source_location"], "/kernels/nki/examples/vector_add.py:17"));  // load a
    CHECK(ends_with(nki[4]["tag"]["nki_source_location"], "/kernels/nki/examples/vector_add.py:20"));  // store c
}

TEST_CASE("a dump read back as kernel: trace runs as the kernel it came from and dumps the same") {
    const std::string dir = make_temp_dir("bnsim_trace_file");
    for (const std::vector<std::string> sets : {std::vector<std::string>{}, std::vector<std::string>{"lnc=2"},
                                                std::vector<std::string>{"fuse_relu=true", "relu_mask=supplied"}}) {
        const std::string cfg = kRoot + "/configs/default.yaml";
        const auto first = dump(cfg, sets, dir + "/first.jsonl");
        std::string lnc = "1";
        for (const auto& s : sets)
            if (s.rfind("lnc=", 0) == 0) lnc = s.substr(4);
        put(dir + "/replay.yaml", "hardware: trn2\nkernel: trace\nlnc: " + lnc + "\ntrace: {file: first.jsonl}\n");
        const auto again = dump(dir + "/replay.yaml", {}, dir + "/again.jsonl");
        REQUIRE(first.size() == again.size());
        for (size_t i = 1; i < first.size(); ++i) {
            INFO("line " << i + 1);
            REQUIRE(first[i] == again[i]);  // tags, source locations and derived edges included
        }
        CHECK(run_json(cfg, sets)["latency_ns"] == run_json(dir + "/replay.yaml")["latency_ns"]);
    }
}

TEST_CASE("the Tensor engine prices transposes and matmuls by the nki.isa cost notes, near W1's profile") {
    // W1's shape: 64 fp32 128x128 transposes, each (64 fixed + 4 x 128) PE cycles at 2.4 GHz.
    const json t = run_json(kRoot + "/configs/nki/transpose.yaml");
    const json& pe = t["engines"]["pe"];
    CHECK(pe["instructions"] == 64);
    CHECK(pe["busy_ns"].get<double>() == Approx(64 * (64 + 4.0 * 128) / 2.4));
    // trn2-whole-kernels.md W1: tensor_engine_active_time 16.14 us (active time excludes
    // semaphore waits, so it is the engine's busy time).
    CHECK(std::abs(pe["busy_ns"].get<double>() / 16140.0 - 1) < 0.15);
    // 32 bf16 matmuls streaming 512 columns each: 64 + 512 cycles; PSUM accumulation groups of 4.
    const json m = run_json(kRoot + "/configs/nki/matmul.yaml");
    CHECK(m["engines"]["pe"]["instructions"] == 32);
    CHECK(m["engines"]["pe"]["busy_ns"].get<double>() == Approx(32 * (64 + 512) / 2.4));
    const std::string dir = make_temp_dir("bnsim_nki_mm");
    const auto lines = dump(kRoot + "/configs/nki/matmul.yaml", {}, dir + "/mm.jsonl");
    int first = 0, accumulating = 0;
    for (size_t i = 1; i < lines.size(); ++i)
        if (lines[i]["opcode"] == "nc_matmul") (lines[i]["accumulate"].get<bool>() ? accumulating : first)++;
    CHECK(first == 8);          // one per output tile: nl.zeros in PSUM folds into the first matmul
    CHECK(accumulating == 24);  // the other three of K/128 = 4 add into the bank
    // fp32 at a quarter of the rate: the same matmul with fp32 inputs streams 4 cycles a column.
    const json f = run_json(kRoot + "/configs/nki/matmul.yaml", {"nki.args.a_t.dtype=float32", "nki.args.b.dtype=float32"});
    CHECK(f["engines"]["pe"]["busy_ns"].get<double>() == Approx(32 * (64 + 4.0 * 512) / 2.4));
}

TEST_CASE("an NKI kernel's allocation: loop buffers rotate when asked, and the peak is reported") {
    const std::string dir = make_temp_dir("bnsim_nki_rot");
    const std::string cfg = kRoot + "/configs/nki/vector_add.yaml";
    const auto one = dump(cfg, {}, dir + "/one.jsonl");
    const auto two = dump(cfg, {"nki.loop_buffers=2"}, dir + "/two.jsonl");
    // Iteration 0 and 1 load a into different buffers with two, the same with one.
    CHECK(one[1]["writes"][0]["bytes"] == one[5]["writes"][0]["bytes"]);
    CHECK(two[1]["writes"][0]["bytes"] != two[5]["writes"][0]["bytes"]);
    CHECK(two[1]["writes"][0]["bytes"] == two[9]["writes"][0]["bytes"]);
    const json s = run_json(cfg, {"nki.loop_buffers=2"})["kernel_summary"];
    CHECK(s["loop_buffers"] == 2);
    CHECK(s["sbuf_peak_bytes"] == 2 * 3 * 16);  // three 8-byte tiles, 16-byte aligned, two buffers each
}
