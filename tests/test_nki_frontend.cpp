// The NKI frontend and trace files end to end, through the real binary: an NKI kernel's trace
// against the C++ generator of the same kernel (two implementations checking each other), a
// dump read back as `kernel: trace`, and the Tensor engine's prices against their closed forms
// and W1's profile.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <dirent.h>
#include <sys/stat.h>
#include <map>
#include <set>
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

std::vector<json> dump(const std::string& config, const std::vector<std::string>& sets, const std::string& path) {
    std::vector<std::string> args = {"trace", config, "--dump", path};
    for (const auto& s : sets) args.insert(args.end(), {"--set", s});
    const CliResult r = run_bnsim(args, CliOptions{120, "", 0});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return read_json_lines(path);
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
    const auto nki = read_json_lines(dir + "/nki.jsonl");
    const auto ends_with = [](const json& s, const std::string& tail) {
        const std::string v = s.get<std::string>();
        return v.size() >= tail.size() && v.compare(v.size() - tail.size(), tail.size(), tail) == 0;
    };
    CHECK(ends_with(nki[1]["tag"]["nki_source_location"], "/kernels/nki/examples/vector_add.py:17"));  // load a
    CHECK(ends_with(nki[4]["tag"]["nki_source_location"], "/kernels/nki/examples/vector_add.py:20"));  // store c
}

TEST_CASE("a dump read back as kernel: trace runs as the kernel it came from and dumps the same") {
    const std::string dir = make_temp_dir("bnsim_trace_file");
    for (const std::vector<std::string>& sets : {std::vector<std::string>{}, std::vector<std::string>{"lnc=2"},
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

namespace {

// A kernel file (after the imports) and a run config tracing k(a) with a [128, 512] fp32 `a`.
std::string nki_kernel_config(const std::string& dir, const std::string& body, const std::string& extra = "") {
    put(dir + "/k.py", "import numpy as np\nimport nki\nimport nki.language as nl\nimport nki.isa as nisa\n\n" + body);
    put(dir + "/k.yaml", "hardware: trn2\nkernel: nki\nnki: {source: k.py, function: k, args: {a: {shape: [128, 512], dtype: float32}}" +
                             extra + "}\n");
    return dir + "/k.yaml";
}

const char* kAccumulateKernel =
    "@nki.jit\n"
    "def k(a, seq=False):\n"
    "    acc = nl.zeros((128, 512), dtype=np.float32, buffer=nl.sbuf)\n"
    "    loop = nl.sequential_range if seq else nl.affine_range\n"
    "    for i in loop(4):\n"
    "        t = nl.load(a)\n"
    "        acc[...] = nisa.tensor_tensor(acc, t, nl.add)\n"
    "    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm, name='out')\n"
    "    nl.store(out, acc)\n"
    "    return out\n";

}  // namespace

TEST_CASE("the Tensor engine prices transposes and matmuls by the nki.isa cost notes, near W1's profile") {
    // W1's shape: 64 fp32 128x128 transposes, each 4 x 128 PE cycles at 2.4 GHz of occupancy (the
    // PE bound) and 64 cycles more until its result is written (engines.pe.result_latency_cycles).
    const json t = run_json(kRoot + "/configs/nki/transpose.yaml");
    const json& pe = t["engines"]["pe"];
    CHECK(pe["instructions"] == 64);
    CHECK(t["bounds"]["pe_ns"].get<double>() == Approx(64 * 4.0 * 128 / 2.4));
    // Busy is the union of the spans: between occupancy alone and each span whole.
    CHECK(pe["busy_ns"].get<double>() >= 64 * 4.0 * 128 / 2.4 - 1e-6);
    CHECK(pe["busy_ns"].get<double>() <= 64 * (64 + 4.0 * 128) / 2.4 + 1e-6);
    // trn2-whole-kernels.md W1: tensor_engine_active_time 16.14 us (active time excludes
    // semaphore waits, so it is the engine's busy time).
    CHECK(std::abs(pe["busy_ns"].get<double>() / 16140.0 - 1) < 0.10);
    // 32 bf16 matmuls streaming 512 columns each; PSUM accumulation groups of 4.
    const json m = run_json(kRoot + "/configs/nki/matmul.yaml");
    CHECK(m["engines"]["pe"]["instructions"] == 32);
    CHECK(m["bounds"]["pe_ns"].get<double>() == Approx(32 * 512 / 2.4));
    const std::string dir = make_temp_dir("bnsim_nki_mm");
    const auto lines = dump(kRoot + "/configs/nki/matmul.yaml", {}, dir + "/mm.jsonl");
    int first = 0, accumulating = 0;
    for (size_t i = 1; i < lines.size(); ++i)
        if (lines[i]["opcode"] == "nc_matmul") (lines[i]["accumulate"].get<bool>() ? accumulating : first)++;
    CHECK(first == 8);          // one per output tile: nl.zeros in PSUM folds into the first matmul
    CHECK(accumulating == 24);  // the other three of K/128 = 4 add into the bank
    // fp32 at a quarter of the rate: the same matmul with fp32 inputs streams 4 cycles a column.
    const json f = run_json(kRoot + "/configs/nki/matmul.yaml", {"nki.args.a_t.dtype=float32", "nki.args.b.dtype=float32"});
    CHECK(f["bounds"]["pe_ns"].get<double>() == Approx(32 * 4.0 * 512 / 2.4));
}

TEST_CASE("an engine's strided rows of one DMA share a packet of up to dma.packet_bytes, one overhead each") {
    // One load of a [128, 128] fp32 block of a [128, 512] tensor: 512 B rows 2 KiB apart, 8 rows
    // on each of the 16 engines. At 23 B/ns and 8 ns of descriptor overhead an engine is busy
    // 8 x 512 / 23 + 8 ns with 4 KiB packets (one packet), + 2 x 8 with 2 KiB packets, and
    // 8 x (512 / 23 + 8) with one descriptor per row.
    const std::string dir = make_temp_dir("bnsim_nki_packet");
    const std::string cfg = nki_kernel_config(dir,
        "@nki.jit\n"
        "def k(a):\n"
        "    t = nl.load(a[:, 0:128])\n"
        "    out = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.shared_hbm, name='out')\n"
        "    nl.store(out, t)\n"
        "    return out\n");
    auto busy = [&](const std::string& packet) {
        const json r = run_json(cfg, {"hardware.dma.packet_bytes=" + packet});
        return r["dma"]["engine_busy_ns_avg"].get<double>();
    };
    const double row = 512 / 23.0;
    // The store's rows are contiguous in HBM ([128, 128] out): one merged descriptor per engine.
    const double store = 8 * row + 8;
    CHECK(busy("4096") == Approx(8 * row + 8 + store).margin(1e-3));
    CHECK(busy("2048") == Approx(8 * row + 16 + store).margin(1e-3));
    CHECK(busy("0") == Approx(8 * (row + 8) + store).margin(1e-3));
}

TEST_CASE("nl.copy of a PSUM tile is an ACT activation copy, of an SBUF tile a DVE tensor_copy") {
    // ops.ASSUMPTIONS "nl.copy" (W1's profile: the measured transpose's nl.copy out of PSUM ran
    // on ACT). One copy of each kind: the ACT one priced by M8's ACT copy PSUM fp32 row,
    // 161.8 ns + 0.8694 ns per element at 512 elements = 606.9 ns.
    const std::string dir = make_temp_dir("bnsim_nki_copy");
    const std::string cfg = nki_kernel_config(dir,
        "@nki.jit\n"
        "def k(a):\n"
        "    w = nl.load(a[:, 0:128])\n"
        "    x = nl.load(a)\n"
        "    p = nisa.nc_matmul(w, x)\n"
        "    y = nl.copy(p, dtype=nl.float32)\n"
        "    z = nl.copy(y)\n"
        "    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm, name='out')\n"
        "    nl.store(out, z)\n"
        "    return out\n");
    const auto lines = dump(cfg, {}, dir + "/copy.jsonl");
    std::vector<std::pair<std::string, std::string>> copies;  // (engine, opcode) in program order
    for (size_t i = 1; i < lines.size(); ++i)
        if (lines[i]["opcode"] == "activation" || lines[i]["opcode"] == "tensor_copy")
            copies.emplace_back(lines[i]["engine"].get<std::string>(), lines[i]["opcode"].get<std::string>());
    REQUIRE(copies.size() == 2);
    CHECK(copies[0] == std::make_pair(std::string("act"), std::string("activation")));
    CHECK(copies[1] == std::make_pair(std::string("dve"), std::string("tensor_copy")));
    const json r = run_json(cfg);
    CHECK(r["engines"]["act"]["busy_ns"].get<double>() == Approx(161.8 + 0.8694 * 512).margin(0.5));
    // W1: its 64 copies out of PSUM on ACT, within 10% of the profile's 16.28 us of ACT time.
    const json t = run_json(kRoot + "/configs/nki/transpose.yaml");
    CHECK(t["engines"]["act"]["instructions"] == 64);
    CHECK(std::abs(t["engines"]["act"]["busy_ns"].get<double>() / 16277.0 - 1) < 0.10);
}

TEST_CASE("the Tensor engine's result latency pipelines under its next matmul and delays only other engines") {
    // Two fp32 matmuls of the same loaded operands, back to back, then a Vector-engine copy of
    // the second's PSUM result. Each occupies the PE 4 x 512 cycles; the second starts as the
    // first leaves the engine (not 64 cycles later), the copy once the second's result is written
    // (64 cycles after it leaves) plus the semaphore hand-off (104 ns).
    const std::string dir = make_temp_dir("bnsim_nki_pelat");
    const std::string cfg = nki_kernel_config(dir,
        "@nki.jit\n"
        "def k(a):\n"
        "    w = nl.load(a[:, 0:128])\n"
        "    x = nl.load(a)\n"
        "    p1 = nisa.nc_matmul(w, x)\n"
        "    p2 = nisa.nc_matmul(w, x)\n"
        "    y = nisa.tensor_copy(p2)\n"
        "    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm, name='out')\n"
        "    nl.store(out, y)\n"
        "    return out\n");
    const CliResult r = run_bnsim({"run", cfg, "--json", "--timeline", dir + "/tl.json"}, CliOptions{120, "", 0});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const json report = json::parse(r.out);
    std::ifstream in(dir + "/tl.json");
    const json tl = json::parse(in);
    std::map<std::string, std::vector<double>> starts;  // by opcode, in time order
    for (const auto& e : tl["traceEvents"])
        if (e.value("ph", "") == "X" && e.value("cat", "") == "engine" && e["name"] != "wait")
            starts[e["name"].get<std::string>()].push_back(e["ts"].get<double>() * 1000);
    for (auto& [_, v] : starts) std::sort(v.begin(), v.end());
    REQUIRE(starts["nc_matmul"].size() == 2);
    REQUIRE(starts["tensor_copy"].size() == 1);
    const double occupy = 4.0 * 512 / 2.4, latency = 64 / 2.4;
    CHECK(starts["nc_matmul"][1] - starts["nc_matmul"][0] == Approx(occupy).margin(1e-3));
    CHECK(starts["tensor_copy"][0] - starts["nc_matmul"][1] == Approx(occupy + latency + 104).margin(1e-3));
    // Busy: the two spans overlap by the first's latency; the list scheduler's estimate counts it
    // the same way.
    CHECK(report["engines"]["pe"]["busy_ns"].get<double>() == Approx(2 * occupy + latency).margin(1e-3));
    const CliResult e = run_bnsim({"run", cfg, "--json", "--estimate"}, CliOptions{120, "", 0});
    REQUIRE(e.exit_code == 0);
    CHECK(json::parse(e.out)["engines"]["pe"]["busy_ns"].get<double>() == Approx(2 * occupy + latency).margin(1e-3));
    // Without the latency the copy follows the occupancy directly.
    const CliResult z = run_bnsim({"run", cfg, "--json", "--set", "hardware.engines.pe.result_latency_cycles=0"},
                                  CliOptions{120, "", 0});
    REQUIRE(z.exit_code == 0);
    CHECK(json::parse(z.out)["engines"]["pe"]["busy_ns"].get<double>() == Approx(2 * occupy).margin(1e-3));
}

TEST_CASE("a tile refilled in every iteration of a sequential loop is renamed, one carrying a value is not") {
    // t is loaded whole in each iteration and read only there: its values never cross an
    // iteration, so the compiler may give each iteration its own copy (nki.rename_copies). acc
    // carries the running sum from one iteration to the next and is read after the loop: one place.
    // The loop runs 6 iterations; with nki.rename_copies=4, t takes four copies in turn.
    const std::string dir = make_temp_dir("bnsim_nki_rename");
    const std::string cfg = nki_kernel_config(dir,
        "@nki.jit\n"
        "def k(a):\n"
        "    t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)\n"
        "    acc = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.sbuf)\n"
        "    for i in nl.sequential_range(6):\n"
        "        nisa.dma_copy(dst=t, src=a)\n"
        "        acc[...] = nisa.tensor_tensor(acc, t, nl.add)\n"
        "    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm, name='out')\n"
        "    nl.store(out, acc)\n"
        "    return out\n");
    auto loads_and_adds = [&](const std::vector<std::string>& sets, const std::string& name) {
        const auto lines = dump(cfg, sets, dir + "/" + name + ".jsonl");
        std::vector<json> loads, adds;
        for (size_t i = 1; i < lines.size(); ++i) {
            if (lines[i]["opcode"] == "dma_copy" && lines[i]["writes"][0]["space"] == "sbuf") loads.push_back(lines[i]);
            if (lines[i]["opcode"] == "tensor_tensor") adds.push_back(lines[i]);
        }
        REQUIRE(loads.size() == 6);
        REQUIRE(adds.size() == 6);
        return std::make_pair(loads, adds);
    };
    const auto [loads, adds] = loads_and_adds({"nki.rename_copies=4"}, "four");
    // Four copies of t, in turn: iteration i loads into copy i mod 4, on its own queue,
    // and the add of that iteration reads the copy its load filled.
    std::set<json> places;
    for (int i = 0; i < 6; ++i) {
        places.insert(loads[i]["writes"][0]["bytes"]);
        CHECK(adds[i]["reads"][1]["bytes"] == loads[i]["writes"][0]["bytes"]);
        CHECK(adds[i]["writes"][0]["bytes"] == adds[0]["writes"][0]["bytes"]);  // acc stays
        CHECK(adds[i]["reads"][0]["bytes"] == adds[0]["writes"][0]["bytes"]);
    }
    CHECK(places.size() == 4);
    CHECK(loads[4]["writes"][0]["bytes"] == loads[0]["writes"][0]["bytes"]);
    CHECK(loads[1]["queue"] != loads[0]["queue"]);
    CHECK(loads[4]["queue"] == loads[0]["queue"]);
    // Each copy's load waits only for the add that read that copy four iterations before.
    const json s = run_json(cfg, {"nki.rename_copies=4"})["kernel_summary"];
    CHECK(s["renamed_tiles"] == 1);
    CHECK(s["rotating_tiles"] == 0);  // a sequential_range body's tiles do not rotate
    // The allocator's peak (t, acc, and the add's result tile, whose write the assignment folds
    // into acc) and t's three copies above it.
    CHECK(s["sbuf_peak_bytes"] == (3 + 3) * 2048);
    CHECK(loads[1]["writes"][0]["bytes"][0] == 3 * 2048);
    // By default (8 copies) each of the six iterations its own; two copies alternate; one: one place.
    const auto [dflt, dflt_adds] = loads_and_adds({}, "eight");
    std::set<json> eight;
    for (const auto& l : dflt) eight.insert(l["writes"][0]["bytes"]);
    CHECK(eight.size() == 6);
    const auto [two, two_adds] = loads_and_adds({"nki.rename_copies=2"}, "two");
    CHECK(two[2]["writes"][0]["bytes"] == two[0]["writes"][0]["bytes"]);
    CHECK(two[1]["writes"][0]["bytes"] != two[0]["writes"][0]["bytes"]);
    const auto [off, off_adds] = loads_and_adds({"nki.rename_copies=1"}, "off");
    for (int i = 1; i < 6; ++i) CHECK(off[i]["writes"][0]["bytes"] == off[0]["writes"][0]["bytes"]);
    CHECK(run_json(cfg, {"nki.rename_copies=1"})["kernel_summary"]["renamed_tiles"] == 0);
}

TEST_CASE("an NKI kernel's allocation: loop buffers rotate when asked, and the peak is reported") {
    const std::string dir = make_temp_dir("bnsim_nki_rot");
    const std::string cfg = kRoot + "/configs/nki/vector_add.yaml";
    const auto one = dump(cfg, {"nki.loop_buffers=1"}, dir + "/one.jsonl");
    const auto two = dump(cfg, {"nki.loop_buffers=2"}, dir + "/two.jsonl");
    // Iteration 0 and 1 load a into different buffers with two, the same with one...
    CHECK(one[1]["writes"][0]["bytes"] == one[5]["writes"][0]["bytes"]);
    CHECK(two[1]["writes"][0]["bytes"] != two[5]["writes"][0]["bytes"]);
    CHECK(two[1]["writes"][0]["bytes"] == two[9]["writes"][0]["bytes"]);
    // ...and each buffer's transfers take their own queues: a, b, c of buffer 0, then of buffer 1.
    CHECK(one[5]["queue"] == one[1]["queue"]);
    CHECK(two[1]["queue"] == 0);
    CHECK(two[2]["queue"] == 1);
    CHECK(two[4]["queue"] == 2);
    CHECK(two[5]["queue"] == 3);
    CHECK(two[9]["queue"] == 0);
    // The default is 4 buffers (docs/nki-frontend.md).
    const auto dflt = dump(cfg, {}, dir + "/four.jsonl");
    CHECK(dflt[1]["writes"][0]["bytes"] == dflt[17]["writes"][0]["bytes"]);
    CHECK(dflt[1]["writes"][0]["bytes"] != dflt[13]["writes"][0]["bytes"]);
    const json s = run_json(cfg, {"nki.loop_buffers=2"})["kernel_summary"];
    CHECK(s["loop_buffers"] == 2);
    CHECK(s["rotating_tiles"] == 3);  // a, b and their sum, allocated in the affine_range body
    // Counted even at one buffer: the compiler's depth still applies to them (a band varies it).
    CHECK(run_json(cfg, {"nki.loop_buffers=1"})["kernel_summary"]["rotating_tiles"] == 3);
    CHECK(s["sbuf_peak_bytes"] == 2 * 3 * 16);  // three 8-byte tiles, 16-byte aligned, two buffers each
}


TEST_CASE("an inner loop's rotating tiles go on rotating across the outer loop: more buffers never slow W1") {
    // W1's inner loop has 8 iterations. Its tiles' turns count over the whole nest, so 6 buffers
    // are used evenly (iteration k of 64 in buffer k mod 6), not buffers 0 and 1 twice in every
    // outer iteration; each buffer added shortens the kernel.
    double last = 0;
    for (int n : {3, 4, 5, 6, 7}) {
        INFO(n);
        const json r = run_json(kRoot + "/configs/nki/transpose.yaml", {"nki.loop_buffers=" + std::to_string(n)});
        const double k = r["kernel_ns"].get<double>();
        if (last > 0) CHECK(k < last);
        last = k;
    }
}

TEST_CASE("validate on an NKI kernel reports the races its affine_range loops allow") {
    const std::string dir = make_temp_dir("bnsim_nki_race");
    const std::string cfg = nki_kernel_config(dir, kAccumulateKernel);
    // Accumulating into a tile allocated outside an affine_range: iteration i+1 reads what i wrote.
    const CliResult r = run_bnsim({"validate", cfg, "--json"}, CliOptions{120, "", 0});
    INFO(r.err);
    REQUIRE(r.exit_code == 1);
    const json j = json::parse(r.out);
    CHECK(j["mode"] == "hazards");
    CHECK(j["execution_hazards"].empty());
    REQUIRE(j["source_races"].size() == 1);
    const std::string race = j["source_races"][0];
    CHECK_THAT(race, Catch::StartsWith("RAW on "));
    CHECK_THAT(race, Catch::Contains("affine_range at " + dir + "/k.py:10: " + dir + "/k.py:12 (tensor_tensor) and " + dir +
                                     "/k.py:12 (tensor_tensor)"));
    // The same loop as a sequential_range carries the dependency by design: no race.
    const CliResult s = run_bnsim({"validate", cfg, "--set", "nki.args.seq=true"}, CliOptions{120, "", 0});
    CHECK(s.exit_code == 0);
    CHECK_THAT(s.out, Catch::Contains("0 races"));
    // PSUM accumulation (+=) across an affine_range's iterations is the reduction it permits, and
    // tiles allocated in the loop body are the compiler's to rotate: the examples are race-free.
    for (const char* c : {"matmul", "vector_add", "transpose", "conv2d_maxpool"}) {
        INFO(c);
        CHECK(run_bnsim({"validate", kRoot + "/configs/nki/" + c + ".yaml"}, CliOptions{120, "", 0}).exit_code == 0);
    }
}

TEST_CASE("an NKI DMA whose call names no DGE mode gets a hardware DGE unless the config names another") {
    const std::string dir = make_temp_dir("bnsim_nki_dge");
    const std::string cfg = nki_kernel_config(
        dir,
        "@nki.jit\n"
        "def k(a):\n"
        "    v = a.reshape((128 * 512,)).reshape((128, 512))\n"  // a view of a view: the same bytes
        "    t = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.sbuf)\n"
        "    nisa.dma_copy(dst=t, src=v)\n"
        "    u = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.sbuf)\n"
        "    nisa.dma_copy(dst=u, src=a, dge_mode=nisa.dge_mode.swdge)\n"
        "    return a\n");
    auto dges = [&](const std::vector<std::string>& sets) {
        const auto lines = dump(cfg, sets, dir + "/t.jsonl");
        REQUIRE(lines.size() == 3);
        return std::vector<std::string>{lines[1]["dge"], lines[1]["engine"], lines[2]["dge"], lines[2]["engine"]};
    };
    CHECK(dges({}) == std::vector<std::string>{"hardware", "sync", "software", "pool"});
    CHECK(dges({"nki.dge=none"}) == std::vector<std::string>{"none", "sync", "software", "pool"});
    CHECK(dges({"nki.dge=software"}) == std::vector<std::string>{"software", "pool", "software", "pool"});
    // Both views of `a` are its [128, 512] rows: one HBM row per partition.
    const auto lines = dump(cfg, {}, dir + "/t.jsonl");
    CHECK(lines[1]["reads"][0]["rows"] == json::array({0, 128}));
    CHECK(lines[1]["reads"][0]["bytes"] == json::array({0, 2048}));
}

TEST_CASE("a 1-D HBM vector read as [128, F] tiles is viewed with rows of F, one per partition") {
    // The course's vector_add_stream pattern: a [25600] vector reshaped to [128, 200].
    const std::string dir = make_temp_dir("bnsim_nki_1d");
    put(dir + "/k.py",
        "import nki\nimport nki.language as nl\nimport nki.isa as nisa\n\n"
        "@nki.jit\n"
        "def k(v, free=2):\n"
        "    m = v.reshape((128, v.shape[0] // 128))\n"
        "    out = nl.ndarray(m.shape, dtype=v.dtype, buffer=nl.hbm)\n"
        "    for i in nl.affine_range(m.shape[1] // free):\n"
        "        t = nl.ndarray((128, free), dtype=v.dtype, buffer=nl.sbuf)\n"
        "        nisa.dma_copy(dst=t, src=m[:, i * free:(i + 1) * free])\n"
        "        nisa.dma_copy(dst=out[:, i * free:(i + 1) * free], src=t)\n"
        "    return out.reshape(v.shape)\n");
    put(dir + "/k.yaml", "hardware: trn2\nkernel: nki\nnki: {source: k.py, function: k, args: {v: {shape: [25600], dtype: float32}}}\n");
    const auto lines = dump(dir + "/k.yaml", {}, dir + "/t.jsonl");
    CHECK(lines[0]["tensors"][0]["rows"] == 128);
    CHECK(lines[0]["tensors"][0]["row_bytes"] == 800);
    CHECK(run_json(dir + "/k.yaml")["kernel_summary"]["inexact_hbm_regions"] == 0);
    CHECK(lines[3]["reads"][0]["rows"] == json::array({0, 128}));
    CHECK(lines[3]["reads"][0]["bytes"] == json::array({8, 16}));
    CHECK(lines[1]["queue"] != lines[2]["queue"]);  // the load and the store stream apart
}

TEST_CASE("a kernel the frontend refuses leaves no trace file behind") {
    const std::string dir = make_temp_dir("bnsim_nki_nothing");
    const std::string cfg = nki_kernel_config(dir, "@nki.jit\ndef k(a):\n    t = nl.load(a)\n    nisa.dropout(t, 0.5)\n");
    const CliResult r = run_bnsim({"trace", cfg, "--dump", dir + "/t.jsonl"}, CliOptions{120, "", 0});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("k.py:9: nisa.dropout"));
    std::ifstream f(dir + "/t.jsonl");
    CHECK_FALSE(f.good());
    // Nor does the frontend's private folder (bnsim-nki-*) stay in the temporary directory, on
    // failure or success.
    const std::string tmp = dir + "/tmp";
    REQUIRE(mkdir(tmp.c_str(), 0755) == 0);
    setenv("TMPDIR", tmp.c_str(), 1);
    CHECK(run_bnsim({"trace", cfg}, CliOptions{120, "", 0}).exit_code == 2);
    CHECK(run_bnsim({"trace", kRoot + "/configs/nki/vector_add.yaml"}, CliOptions{120, "", 0}).exit_code == 0);
    unsetenv("TMPDIR");
    DIR* d = opendir(tmp.c_str());
    REQUIRE(d);
    int entries = 0;
    while (dirent* e = readdir(d))
        if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") ++entries;
    closedir(d);
    CHECK(entries == 0);
}

TEST_CASE("one command traces an NKI kernel once per distinct request, and its children share the trace") {
    // Three rows of one kernel at different DMA trigger costs need one trace (the hardware value
    // does not reach the frontend); a fourth at another usable SBUF size changes the frontend's
    // target, so it is traced again. The interpreter is a wrapper that counts its starts.
    const std::string d = make_temp_dir("bnsim_trace_cache");
    REQUIRE(!d.empty());
    const std::string python = counting_python(d);
    put(d + "/k.yaml", "hardware: " + kRoot + "/configs/hw/trn2.yaml\nkernel: nki\nnki:\n  source: " + kRoot +
                           "/kernels/nki/examples/transpose.py\n  function: transpose\n  args:\n"
                           "    x: {shape: [256, 256], dtype: float32}\n  python: " + python + "\n");
    put(d + "/m.csv",
        "id,config,hardware.dma.trigger_cycles,hardware.sbuf.usable_bytes_per_partition,latency_us\n"
        "a,k.yaml,64,212992,10\nb,k.yaml,100,212992,10\nc,k.yaml,200,212992,10\nd,k.yaml,64,200000,10\n");
    mkdir((d + "/tmp").c_str(), 0700);
    setenv("TMPDIR", (d + "/tmp").c_str(), 1);  // this case's own process (ctest runs one per process)
    const CliResult r = run_bnsim({"compare", d + "/m.csv", "-j", "1", "--json"}, CliOptions{120, "", 0});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(python_starts(d) == 2);
    // The cache folder went with the command.
    CHECK(std::filesystem::is_empty(d + "/tmp"));
    // A cached trace predicts what a fresh one does.
    const json j = json::parse(r.out);
    const json run = run_json(d + "/k.yaml", {"hardware.dma.trigger_cycles=100"});
    REQUIRE(j["points"].size() == 4);
    CHECK(j["points"][1]["id"] == "b");
    CHECK(j["points"][1]["predicted_us"].get<double>() == Approx(run["latency_ns"].get<double>() / 1000).epsilon(1e-9));
}
