// kernels/trace_cache.h in memory: the kernels a process made from an outside program's traces,
// which a fit's children inherit instead of reading and deriving the trace again. Kept by key,
// the eight most recent, each handed out as a copy; only kernels with an outside tracer offer
// the hook that fills it. On disk: the trace image (trace/trace_image.h) and the entries kept
// across commands, checked against the files the kernel was read from.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "kernels/trace_cache.h"
#include "sim/config/run_config.h"
#include "tests/cli_run.h"
#include "tests/source_paths.h"
#include "tests/test_util.h"
#include "trace/trace_image.h"
#include "trace/trace_json.h"

using namespace bnsim;
using namespace bnsim::test;
using json = nlohmann::json;

namespace {

GeneratedKernel remembered_test_kernel(size_t n) {
    GeneratedKernel g;
    for (size_t i = 0; i < n; ++i) {
        Instruction in;
        in.engine = Engine::Dve;
        g.trace.append(in);
    }
    g.measured_bytes = n;
    return g;
}

}  // namespace

TEST_CASE("trace cache in memory: kernels by key within a budget, the oldest out first, each handed out shared") {
    const std::string prefix = "test_trace_cache key ";
    auto remember = [&](size_t k, size_t n) {
        remember_kernel(prefix + std::to_string(k), std::make_shared<const GeneratedKernel>(remembered_test_kernel(n)));
    };
    // At most eight kernels: the ninth pushes out the first; the others are there with their own contents.
    set_remembered_budget(8, 1000);
    for (size_t k = 1; k <= 9; ++k) remember(k, k);
    CHECK_FALSE(is_remembered(prefix + "1"));
    CHECK_FALSE(remembered_kernel(prefix + "1"));
    for (size_t k = 2; k <= 9; ++k) {
        INFO(k);
        REQUIRE(is_remembered(prefix + std::to_string(k)));
        const auto g = remembered_kernel(prefix + std::to_string(k));
        REQUIRE(g);
        CHECK(g->trace.size() == k);
        CHECK(g->measured_bytes == k);
    }
    // Shared, not copied: each lookup hands out the kept kernel itself; a key kept again keeps
    // the first kernel.
    CHECK(remembered_kernel(prefix + "5").get() == remembered_kernel(prefix + "5").get());
    remember(5, 7);
    CHECK(remembered_kernel(prefix + "5")->measured_bytes == 5);
    CHECK(remembered_kernel(prefix + "5")->trace.size() == 5);
    // At most 50 instructions in all: kernels 2..9 hold 44; one of 20 pushes out the oldest until
    // the rest fit (2, 3, 4, 5: 14 instructions), leaving 6..9 and 10 (50).
    set_remembered_budget(8, 50);
    remember(10, 20);
    for (size_t k = 2; k <= 5; ++k) CHECK_FALSE(is_remembered(prefix + std::to_string(k)));
    for (size_t k = 6; k <= 10; ++k) CHECK(is_remembered(prefix + std::to_string(k)));
    // A kernel over the whole budget alone is still kept (the newest stays).
    remember(11, 80);
    CHECK(is_remembered(prefix + "11"));
    CHECK_FALSE(is_remembered(prefix + "10"));
    // A smaller budget trims at once.
    remember(12, 1);
    set_remembered_budget(1, 1000);
    CHECK(is_remembered(prefix + "12"));
    CHECK_FALSE(is_remembered(prefix + "11"));
    set_remembered_budget(kRememberedKernels, kRememberedInstructions);
}

TEST_CASE("trace cache in memory: only a kernel traced by an outside program has keep_traced") {
    // The NKI kernel's frontend is a Python process; the C++ kernels trace in place. With no
    // command trace folder open nothing was traced before, so nothing is taken into memory.
    CHECK(load_run_config(kSrc + "/configs/nki/vector_add.yaml").keep_traced());
    CHECK_FALSE(load_run_config(kSrc + "/configs/default.yaml").keep_traced());
}

// ---- on disk, across commands (BNSIM_TRACE_CACHE): the trace image and the kept entries ----------

namespace {

// Every field the image carries, instruction by instruction.
void check_same_trace(const Trace& a, const Trace& b) {
    REQUIRE(a.kernel == b.kernel);
    REQUIRE(a.num_cores == b.num_cores);
    REQUIRE(a.tensors().size() == b.tensors().size());
    for (size_t k = 0; k < a.tensors().size(); ++k) {
        const HbmTensor &x = a.tensors()[k], &y = b.tensors()[k];
        CHECK((x.id == y.id && x.name == y.name && x.dtype == y.dtype && x.shape == y.shape && x.rows == y.rows &&
               x.row_bytes == y.row_bytes && x.base_addr == y.base_addr && x.owner_core == y.owner_core &&
               x.is_input == y.is_input && x.is_output == y.is_output));
    }
    REQUIRE(a.size() == b.size());
    auto same_region = [](const Region& x, const Region& y) {
        return x.space == y.space && x.core == y.core && x.buffer == y.buffer && x.row_lo == y.row_lo &&
               x.row_hi == y.row_hi && x.byte_lo == y.byte_lo && x.byte_hi == y.byte_hi;
    };
    auto same_operands = [&](const OperandList& x, const OperandList& y) {
        if (x.size() != y.size()) return false;
        for (size_t k = 0; k < x.size(); ++k)
            if (!same_region(x[k].region, y[k].region) || x[k].dtype != y[k].dtype) return false;
        return true;
    };
    auto same_text = [](const char* x, const char* y) { return x && y ? std::string(x) == y : x == y; };
    size_t differing = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        const Instruction &x = a.instructions()[i], &y = b.instructions()[i];
        bool same = x.id == y.id && x.core == y.core && x.engine == y.engine && x.opcode == y.opcode &&
                    x.act_func == y.act_func && x.deps == y.deps && same_operands(x.srcs, y.srcs) &&
                    same_operands(x.dsts, y.dsts) && x.partitions == y.partitions && x.alu[0] == y.alu[0] &&
                    x.alu[1] == y.alu[1] && x.accumulate == y.accumulate && x.acc_readout == y.acc_readout &&
                    x.psum_accumulate == y.psum_accumulate && x.free_elems == y.free_elems &&
                    x.dma.dge == y.dma.dge && x.dma.queue == y.dma.queue && x.peer_core == y.peer_core &&
                    x.pipe == y.pipe && same_text(x.tag.what, y.tag.what) && same_text(x.tag.source, y.tag.source) &&
                    x.tag.unit == y.tag.unit && x.tag.slot == y.tag.slot && x.tag.ctile == y.tag.ctile &&
                    x.tag.role == y.tag.role && x.tag.phase == y.tag.phase;
        for (int s = 0; s < 2; ++s) {
            same = same && x.scalar[s].imm == y.scalar[s].imm && x.scalar[s].column.has_value() == y.scalar[s].column.has_value();
            if (same && x.scalar[s].column) same = same_operands({*x.scalar[s].column}, {*y.scalar[s].column});
        }
        differing += !same;
    }
    CHECK(differing == 0);
}

}  // namespace

TEST_CASE("trace image: a trace and its dependencies read back field for field, and a damaged image reads as none") {
    // The seed shape's batch_norm_bwd (scalar columns, accumulations, both phases) and a traced
    // NKI kernel (source lines on its tags, an info object).
    GeneratedKernel bn = load_run_config(kDefault).generate();
    auto has = [&](const auto& pred) {
        return std::any_of(bn.trace.instructions().begin(), bn.trace.instructions().end(), pred);
    };
    REQUIRE(has([](const Instruction& in) { return in.scalar[0].column.has_value(); }));
    REQUIRE(has([](const Instruction& in) { return in.accumulate != Accumulate::none; }));
    REQUIRE(has([](const Instruction& in) { return in.deps.size() > 1; }));
    GeneratedKernel nki = load_run_config(kSrc + "/configs/nki/softmax.yaml").generate();
    REQUIRE(nki.trace.instructions()[0].tag.source != nullptr);
    for (GeneratedKernel* g : {&bn, &nki}) {
        TraceFile tf;
        tf.trace = g->trace;
        tf.info = {{"producer", "test"}, {"n", 3}};
        const std::string image = trace_image(tf);
        const auto back = read_trace_image(image);
        REQUIRE(back);
        check_same_trace(g->trace, back->trace);
        CHECK(back->info == tf.info);
        // A byte changed anywhere, a version from elsewhere, any shorter or longer image: none.
        for (size_t at : {size_t(0), size_t(9), size_t(20), image.size() / 2, image.size() - 1}) {
            std::string bad = image;
            bad[at] = char(bad[at] ^ 0x5a);
            CHECK_FALSE(read_trace_image(bad));
        }
        for (size_t n : {size_t(0), size_t(19), size_t(20), image.size() / 3, image.size() - 1})
            CHECK_FALSE(read_trace_image(std::string_view(image).substr(0, n)));
        CHECK_FALSE(read_trace_image(image + "x"));
    }
}

TEST_CASE("trace cache on disk: a kernel is traced once across commands, again when a file it was read from changes") {
    // The interpreter is a wrapper that counts its starts; the kernel imports a helper module
    // beside it. Each bnsim command here is a separate process.
    const std::string d = make_temp_dir("bnsim_trace_store");
    REQUIRE(!d.empty());
    const std::string python = counting_python(d);
    put(d + "/helper.py", "COLS = 64\n");
    put(d + "/k.py", "import nki\nimport nki.isa as nisa\nimport nki.language as nl\nfrom helper import COLS\n\n\n"
                     "@nki.jit\ndef add(a, b):\n    c = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm, name=\"c\")\n"
                     "    for i in nl.affine_range(a.shape[1] // COLS):\n"
                     "        x = nl.load(a[:, i * COLS:(i + 1) * COLS])\n        y = nl.load(b[:, i * COLS:(i + 1) * COLS])\n"
                     "        nl.store(c[:, i * COLS:(i + 1) * COLS], nisa.tensor_tensor(x, y, nl.add))\n    return c\n");
    put(d + "/k.yaml", "hardware: " + kHw + "\nkernel: nki\nnki:\n  source: k.py\n  function: add\n  args:\n"
                           "    a: {shape: [128, 256], dtype: float32}\n    b: {shape: [128, 256], dtype: float32}\n"
                           "  python: " + python + "\n");
    setenv("BNSIM_TRACE_CACHE", (d + "/cache").c_str(), 1);  // this case's own process
    auto starts = [&] { return python_starts(d); };
    auto run = [&] {
        const CliResult r = run_bnsim({"run", d + "/k.yaml", "--json"}, CliOptions{120, "", 0});
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        json j = json::parse(r.out);
        j.erase("provenance");
        return j;
    };
    const json first = run();
    CHECK(starts() == 1);
    CHECK(first["instructions"] == 4 * 4);
    // Kept: the next commands read the entry, and predict what the trace did.
    CHECK(run() == first);
    CHECK(run() == first);
    CHECK(starts() == 1);
    // The helper module changed: traced again (its value halves the tile, doubling the loop).
    put(d + "/helper.py", "COLS = 32\n");
    const json first8 = run();
    CHECK(first8["instructions"] == 8 * 4);
    CHECK(starts() == 2);
    CHECK(run()["instructions"] == 8 * 4);
    CHECK(starts() == 2);
    // A damaged entry reads as none: traced again, the same result, and kept again.
    for (const auto& e : std::filesystem::directory_iterator(d + "/cache")) {
        std::fstream f(e.path(), std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(std::streamoff(std::filesystem::file_size(e.path()) / 2));
        f.put('\x7f');
    }
    CHECK(run()["instructions"] == 8 * 4);
    CHECK(starts() == 3);
    CHECK(run()["instructions"] == 8 * 4);
    CHECK(starts() == 3);
    // Off: nothing kept across commands, every command traces; so does a folder that cannot be
    // made (under a regular file), and nothing fails for it.
    setenv("BNSIM_TRACE_CACHE", "off", 1);
    run();
    run();
    CHECK(starts() == 5);
    setenv("BNSIM_TRACE_CACHE", (d + "/helper.py/cache").c_str(), 1);
    CHECK(run() == first8);
    CHECK(starts() == 6);
    std::filesystem::remove_all(d);
}

TEST_CASE("trace cache on disk: the folder keeps the 64 entries used last, and no writer's leftovers") {
    // 70 entries from earlier commands, each older than the last, and a temporary file a writer
    // that died two hours ago left; a command then keeps one more trace.
    const std::string d = make_temp_dir("bnsim_trace_trim");
    REQUIRE(!d.empty());
    const std::string cache = d + "/cache";
    std::filesystem::create_directories(cache);
    const auto now = std::filesystem::file_time_type::clock::now();
    for (int k = 0; k < 70; ++k) {
        const std::string f = cache + "/old" + std::to_string(k) + ".kernel";
        put(f, "not an entry");
        std::filesystem::last_write_time(f, now - std::chrono::hours(100 - k));
    }
    put(cache + "/x.kernel.tmp.1", "half");
    std::filesystem::last_write_time(cache + "/x.kernel.tmp.1", now - std::chrono::hours(2));
    put(cache + "/y.kernel.tmp.2", "being written");  // a writer at work now: left alone
    setenv("BNSIM_TRACE_CACHE", cache.c_str(), 1);
    const CliResult r = run_bnsim({"run", kSrc + "/configs/nki/vector_add.yaml"}, CliOptions{120, "", 0});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    std::set<std::string> left;
    for (const auto& e : std::filesystem::directory_iterator(cache)) left.insert(e.path().filename().string());
    size_t entries = 0;
    for (const auto& n : left) entries += n.size() > 7 && n.compare(n.size() - 7, 7, ".kernel") == 0;
    CHECK(entries == 64);
    // The seven used longest ago went; the new entry and the 63 most recent old ones stayed.
    for (int k = 0; k < 7; ++k) CHECK(left.count("old" + std::to_string(k) + ".kernel") == 0);
    for (int k = 7; k < 70; ++k) CHECK(left.count("old" + std::to_string(k) + ".kernel") == 1);
    CHECK(left.count("x.kernel.tmp.1") == 0);
    CHECK(left.count("y.kernel.tmp.2") == 1);
    std::filesystem::remove_all(d);
}

TEST_CASE("trace cache in memory: a C++ kernel is kept by run config and target, a trace file's is not") {
    const std::string seed = kSrc + "/configs/default.yaml";
    const auto a = load_run_config(seed, parse_overrides({"hardware.dma.trigger_cycles=100"})).shared_kernel();
    const auto b = load_run_config(seed).shared_kernel();
    CHECK(a.get() == b.get());  // timing parameters leave the trace alone: one kernel, handed out twice
    REQUIRE(a->dependents);     // kept with its reverse edges
    CHECK(a->trace.size() == load_run_config(seed).generate().trace.size());
    // Another run config tree, another target: other kernels.
    CHECK(load_run_config(seed, parse_overrides({"shape.C=128"})).shared_kernel().get() != a.get());
    CHECK(load_run_config(seed, parse_overrides({"hardware.sbuf.usable_bytes_per_partition=196608"})).shared_kernel().get() !=
          a.get());
    // A trace file can change between two runs of one config: read each time.
    const std::string d = make_temp_dir("bnsim_test_shared_kernel");
    {
        std::ofstream cfg(d + "/run.yaml");
        cfg << "hardware: " << kSrc << "/configs/hw/trn2.yaml\nkernel: trace\ntrace: {file: t.jsonl}\n";
    }
    auto dump = [&](const GeneratedKernel& k) {
        std::ofstream out(d + "/t.jsonl");
        write_trace_jsonl(k.trace, out);
    };
    dump(*b);
    const auto t1 = load_run_config(d + "/run.yaml").shared_kernel();
    const auto t2 = load_run_config(d + "/run.yaml").shared_kernel();
    CHECK(t1.get() != t2.get());
    CHECK(t1->trace.size() == b->trace.size());
    std::filesystem::remove_all(d);
}
