// End-to-end timing runs in-process: simulate() elaborates SystemC once per process, and every
// test case runs in its own process (catch_discover_tests), so each case simulates once.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

#include "models/cost_model.h"
#include "models/dma_lifecycle.h"
#include "sim/config/run_config.h"
#include "sim/report/run_report.h"
#include "sim/simulate/simulate.h"
#include "tests/source_paths.h"
#include "tests/test_util.h"

using namespace bnsim;

namespace {

const Instruction* find_first(const Trace& t, int phase, const char* what, int unit, int core = 0) {
    for (const auto& in : t.instructions())
        if (in.core == core && in.tag.phase == phase && in.tag.unit == unit && std::strcmp(in.tag.what, what) == 0)
            return &in;
    return nullptr;
}

Operand sb(uint8_t core, uint32_t p, uint64_t addr, uint64_t bytes) {
    return sbuf_operand(core, 0, p, addr, bytes, DType::fp32);
}

// Three 8-row bf16 loads of `bytes` per row from rows [8i, 8i+8) of tensor tx, all on DMA
// engine 0: D0 and D2 on queue 0, D1 on queue 1. Destinations `dst_stride` apart in SBUF.
void append_three_loads(Trace& t, uint32_t tx, uint64_t bytes, uint64_t dst_stride) {
    const uint16_t queues[3] = {0, 1, 0};
    for (int i = 0; i < 3; ++i) {
        Instruction d;
        d.engine = Engine::Sync;
        d.opcode = Opcode::DmaCopy;
        d.partitions = 8;
        d.free_elems = bytes / 2;
        Operand src;
        src.region = t.hbm(tx, 8 * i, 8 * i + 8, 0, bytes);
        src.dtype = DType::bf16;
        d.srcs = {src};
        Operand dst = sb(0, 8, dst_stride * uint64_t(i), bytes);
        dst.dtype = DType::bf16;
        d.dsts = {dst};
        d.dma.queue = queues[i];
        t.append(d);
    }
}

// Records the observer calls to check their order.
struct Recorder : ExecutionObserverIF {
    std::vector<double> starts, finishes;
    std::vector<int> started, finished;
    double last = -1;
    bool ordered = true;
    explicit Recorder(size_t n) : started(n, 0), finished(n, 0) {}
    void on_start(const Instruction& in, double t) override {
        ordered = ordered && t + 1e-9 >= last;
        last = t;
        ++started[in.id];
        starts.push_back(t);
    }
    void on_finish(const Instruction& in, double t) override {
        ordered = ordered && t + 1e-9 >= last && started[in.id] == 1;
        last = t;
        ++finished[in.id];
        finishes.push_back(t);
    }
};

}  // namespace

TEST_CASE("timing: seed shape finishes, observer sees every instruction in time order, latency >= every bound") {
    RunConfig cfg = test::default_config();
    GeneratedKernel k = cfg.generate();
    Recorder rec(k.trace.size());
    SimOptions so;
    so.observer = &rec;
    SimResult r = simulate(cfg.hw, k.trace, so);
    CHECK(rec.ordered);
    for (size_t i = 0; i < k.trace.size(); ++i) {
        CHECK(rec.started[i] == 1);
        CHECK(rec.finished[i] == 1);
        const auto& t = r.timing[i];
        CHECK(t.head_ns <= t.ready_ns);
        CHECK(t.ready_ns <= t.start_ns + 1e-6);
        CHECK(t.start_ns <= t.end_ns);
        for (uint32_t d : k.trace.instructions()[i].deps) CHECK(r.timing[d].end_ns <= t.start_ns + 1e-6);
    }
    CHECK(r.latency_ns == Approx(r.kernel_ns + cfg.hw.launch.fixed_ns));
    // HBM traffic is the trace's
    const TraceStats st = compute_stats(k.trace);
    CHECK(r.hbm_bytes_read == st.hbm_read_bytes);
    CHECK(r.hbm_bytes_written == st.hbm_write_bytes);

    auto j = to_json(build_run_report(cfg, k, r));
    const double kernel = j["kernel_ns"].get<double>();
    for (auto it = j["bounds"].begin(); it != j["bounds"].end(); ++it)
        if (it.value().is_number()) CHECK(kernel + 1e-3 >= it.value().get<double>());
    CHECK(j["latency_ns"].get<double>() >= kernel);
    REQUIRE(j["phases"].size() == 2);
    for (const auto& p : j["phases"]) {
        CHECK(p["end_ns"].get<double>() <= kernel + 1e-3);
        CHECK(p["start_ns"].get<double>() <= p["end_ns"].get<double>());
    }
    CHECK(j["engines"]["dve"]["busy_ns"].get<double>() > 0);
    CHECK(j["hbm"]["achieved_gbps"].get<double>() ==
          Approx(double(st.hbm_read_bytes + st.hbm_write_bytes) / r.kernel_ns).epsilon(1e-3));
}

TEST_CASE("timing: list scheduling with interleave 2 overlaps tile i+1's loads with tile i's compute") {
    RunConfig cfg = test::default_config({{"memory", "{f_tile: 4096, interleave: 2}"}});
    GeneratedKernel k = cfg.generate();
    SimResult r = simulate(cfg.hw, k.trace, SimOptions{});
    int overlapped = 0;
    for (int i = 0; i + 1 < 32; ++i) {
        const Instruction* next_load = find_first(k.trace, 1, "load x", i + 1);
        const Instruction* compute = find_first(k.trace, 1, "dy*x", i);
        REQUIRE(next_load);
        REQUIRE(compute);
        // tile i+1's x is moving while tile i's dy*x runs
        const auto& l = r.timing[next_load->id];
        const auto& c = r.timing[compute->id];
        if (l.start_ns < c.end_ns && c.start_ns < l.data_end_ns) ++overlapped;
    }
    CHECK(overlapped >= 16);
}

TEST_CASE("timing: program_order serializes each tile's loads behind the previous tile's direct_x store") {
    RunConfig cfg = test::default_config({{"memory", "{f_tile: 4096, interleave: 2}"}});
    GeneratedKernel k = cfg.generate();
    SimOptions so;
    so.policy = SchedulePolicy::program_order;
    SimResult r = simulate(cfg.hw, k.trace, so);
    for (int i = 0; i + 1 < 30; ++i) {
        const Instruction* next_load = find_first(k.trace, 1, "load dy", i + 1);
        const Instruction* act = find_first(k.trace, 1, "direct_x", i);
        REQUIRE(next_load);
        REQUIRE(act);
        // the Sync stream reaches tile i+1's load only after tile i's store could trigger,
        // i.e. after tile i's direct_x activation finished
        CHECK(r.timing[next_load->id].ready_ns >= r.timing[act->id].end_ns - 1e-6);
    }
}

TEST_CASE("timing: a dependency cycle is reported with the blocked instructions, not hung") {
    Trace t;
    t.kernel = "hand";
    Instruction a;
    a.engine = Engine::Act;
    a.opcode = Opcode::Activation;
    a.partitions = 128;
    a.free_elems = 64;
    a.srcs = {sb(0, 128, 0, 256)};
    a.dsts = {sb(0, 128, 256, 256)};
    a.tag.what = "first";
    t.append(a);
    Instruction b;
    b.engine = Engine::Dve;
    b.opcode = Opcode::TensorTensor;
    b.partitions = 128;
    b.free_elems = 64;
    b.srcs = {sb(0, 128, 256, 256), sb(0, 128, 0, 256)};
    b.dsts = {sb(0, 128, 512, 256)};
    b.tag.what = "second";
    t.append(b);
    Instruction c = a;  // independent: must still finish
    c.srcs = {sb(0, 128, 4096, 256)};
    c.dsts = {sb(0, 128, 8192, 256)};
    c.tag.what = "free";
    t.append(c);
    t.instructions()[0].deps = {1};  // a hand-made cycle: 0 <-> 1
    t.instructions()[1].deps = {0};
    RunConfig cfg = test::default_config();
    try {
        simulate(cfg.hw, t, SimOptions{});
        FAIL("no error for a deadlocked trace");
    } catch (const SimulationError& e) {
        const std::string m = e.what();
        CHECK_THAT(m, Catch::Contains("2 of 3 instructions never completed"));
        CHECK_THAT(m, Catch::Contains("#0 core 0 act activation 'first' waits on #1 core 0 dve tensor_tensor 'second'"));
        CHECK_THAT(m, Catch::Contains("#1 core 0 dve tensor_tensor 'second' waits on #0"));
        CHECK_THAT(m, !Catch::Contains("'free'"));
    }
}

TEST_CASE("timing: a sendrecv whose peer never comes is reported") {
    Trace t;
    t.kernel = "hand";
    t.num_cores = 2;
    Instruction s;
    s.core = 0;
    s.engine = Engine::Pool;
    s.opcode = Opcode::SendRecv;
    s.partitions = 64;
    s.free_elems = 1;
    s.srcs = {sb(0, 64, 0, 4), sb(1, 64, 0, 4)};
    s.dsts = {sb(0, 64, 16, 4)};
    s.peer_core = 1;
    s.pipe = 0;
    s.tag.what = "lonely";
    t.append(s);
    RunConfig cfg = test::default_config();
    CHECK_THROWS_WITH(simulate(cfg.hw, t, SimOptions{}),
                      Catch::Contains("#0 core 0 pool sendrecv 'lonely' waits on the matching sendrecv of core 1 on pipe 0"));
}

TEST_CASE("timing: LNC=2 channel sharding (C=256) runs on both cores, no exchanges") {
    RunConfig cfg = test::default_config({{"lnc", "2"}, {"shape.C", "256"}});
    GeneratedKernel k = cfg.generate();
    REQUIRE(k.info["sharding"]["mode"] == "channel");
    SimResult r = simulate(cfg.hw, k.trace, SimOptions{});
    CHECK(r.units.cores.at(0).engines[size_t(Engine::Dve)].instructions > 0);
    CHECK(r.units.cores.at(1).engines[size_t(Engine::Dve)].instructions == r.units.cores.at(0).engines[size_t(Engine::Dve)].instructions);
    REQUIRE(r.units.link);
    CHECK(r.units.link->instructions == 0);
    // both cores share one HBM stack: all the trace's HBM bytes went through it
    const TraceStats st = compute_stats(k.trace);
    CHECK(r.hbm_bytes_read == st.hbm_read_bytes);
    auto j = to_json(build_run_report(cfg, k, r));
    CHECK(j["kernel_ns"].get<double>() + 1e-3 >= j["bounds"]["hbm_ns"].get<double>());
}

TEST_CASE("timing: LNC=2 batch sharding (C=64) swaps dbeta and yx over the link") {
    RunConfig cfg = test::default_config({{"lnc", "2"}, {"shape.C", "64"}});
    GeneratedKernel k = cfg.generate();
    REQUIRE(k.info["sharding"]["mode"] == "batch");
    SimResult r = simulate(cfg.hw, k.trace, SimOptions{});
    REQUIRE(r.units.link);
    CHECK(r.units.link->instructions == 2);  // two exchanges, each a matched pair
    std::vector<const Instruction*> sr;
    for (const auto& in : k.trace.instructions())
        if (in.opcode == Opcode::SendRecv) sr.push_back(&in);
    REQUIRE(sr.size() == 4);
    for (const Instruction* a : sr)
        for (const Instruction* b : sr)
            if (a->core != b->core && a->pipe == b->pipe) {
                CHECK(r.timing[a->id].start_ns == Approx(r.timing[b->id].start_ns));
                CHECK(r.timing[a->id].end_ns == Approx(r.timing[b->id].end_ns));
                // the rendezvous waits for the later of the two sides
                CHECK(r.timing[a->id].start_ns >= std::max(r.timing[a->id].ready_ns, r.timing[b->id].ready_ns) - 1e-6);
            }
    // the add after each exchange waits for it
    for (const auto& in : k.trace.instructions())
        if (in.opcode == Opcode::TensorTensor && std::strncmp(in.tag.what, "exchange", 8) == 0)
            for (uint32_t d : in.deps)
                if (k.trace.instructions()[d].opcode == Opcode::SendRecv)
                    CHECK(r.timing[in.id].start_ns >= r.timing[d].end_ns - 1e-6);
    auto j = to_json(build_run_report(cfg, k, r));
    CHECK(j["link"]["transfers"] == 2);
}

TEST_CASE("timing: a DMA engine serves its queues round-robin and each queue in order") {
    RunConfig cfg = test::default_config();
    cfg.hw.dma.dge_bound_to_issuer = 0;  // either DGE unit takes any DMA: the triggers issue two at a time
    const HwConfig& hw = cfg.hw;
    Trace t;
    t.kernel = "hand";
    HbmTensor x;
    x.name = "x";
    x.dtype = DType::bf16;
    x.rows = 64;
    x.row_bytes = 8192;  // the loads take half of each row: rows strided in HBM, one descriptor each
    const uint32_t tx = t.add_tensor(x);
    // three [8, 4096 B] loads: 8 rows each, so all on DMA engine 0; D0 and D2 on queue 0, D1 on queue 1
    append_three_loads(t, tx, 4096, 8192);
    derive_dependencies(t);
    for (const auto& in : t.instructions()) REQUIRE(in.deps.empty());
    SimResult r = simulate(hw, t, SimOptions{});
    DmaLifecycle rule(hw);
    const double desc = rule.descriptor_ns(4096);
    const double lat = hw.hbm.latency_ns + hw.sbuf.access_latency_ns;
    const auto &d0 = r.timing[0], &d1 = r.timing[1], &d2 = r.timing[2];
    // round-robin: D1 (queue 1) starts before D0 (queue 0) has moved even two of its eight rows...
    CHECK(d1.start_ns < d0.start_ns + 2 * desc);
    // ...so the two finish within a descriptor of each other, after ~16 descriptors of engine time
    CHECK(std::abs(d1.data_end_ns - d0.data_end_ns) <= desc + 1e-3);
    CHECK(std::max(d0.data_end_ns, d1.data_end_ns) >= d0.start_ns + 16 * desc + lat - 1e-3);
    // in order within queue 0: D2 starts only after D0's last row started
    CHECK(d2.start_ns >= d0.data_end_ns - lat - desc - 1e-3);
    // each DMA completes its fixed lifecycle: issue + dispatch before data, completion after
    for (const auto* d : {&d0, &d1, &d2}) {
        CHECK(d->start_ns >= d->issue_end_ns + hw.dma.dispatch_ns - 1e-3);
        CHECK(d->end_ns == Approx(d->data_end_ns + hw.dma.completion_ns));
    }
    // the third DMA waited for a hardware DGE unit (two units, three triggers back to back)
    CHECK(d2.issue_start_ns >= d0.issue_end_ns - 1e-3);
    CHECK(r.units.cores.at(0).dma_engines.at(0).instructions == 24);
    CHECK(r.units.cores.at(0).dma_engines.at(1).instructions == 0);
}

TEST_CASE("timing: a queue holds each DMA for dma.min_queue_occupancy_ns, other queues proceed meanwhile") {
    RunConfig cfg = test::default_config();
    cfg.hw.dma.dge_bound_to_issuer = 0;  // either DGE unit takes any DMA: the triggers issue two at a time
    const HwConfig& hw = cfg.hw;
    REQUIRE(hw.dma.merge_contiguous_rows == 1);
    Trace t;
    t.kernel = "hand";
    HbmTensor x;
    x.name = "x";
    x.dtype = DType::bf16;
    x.rows = 24;
    x.row_bytes = 256;
    const uint32_t tx = t.add_tensor(x);
    // three [8, 256 B] loads, contiguous in HBM: one 2 KiB descriptor each, all on DMA engine 0;
    // D0 and D2 on queue 0, D1 on queue 1
    append_three_loads(t, tx, 256, 256);
    derive_dependencies(t);
    SimResult r = simulate(hw, t, SimOptions{});
    DmaLifecycle rule(hw);
    const double desc = rule.descriptor_ns(2048);
    REQUIRE(desc < hw.dma.min_queue_occupancy_ns);
    const auto &d0 = r.timing[0], &d1 = r.timing[1], &d2 = r.timing[2];
    // queue 1 does not wait for queue 0's occupancy: D1 starts as soon as the engine is free
    CHECK(d1.start_ns < d0.start_ns + hw.dma.min_queue_occupancy_ns);
    // D2 was dispatched before queue 0's occupancy of D0 ran out, and waits for it
    CHECK(d2.issue_end_ns + hw.dma.dispatch_ns < d0.start_ns + hw.dma.min_queue_occupancy_ns);
    CHECK(d2.start_ns == Approx(d0.start_ns + hw.dma.min_queue_occupancy_ns).margin(1e-3));
    // the engine idles meanwhile: busy for the three descriptors only
    CHECK(r.units.cores.at(0).dma_engines.at(0).instructions == 3);
    CHECK(r.units.cores.at(0).dma_engines.at(0).busy_ns == Approx(3 * desc).margin(1e-2));
}

// Issue 8's deadlock: with a long queue occupancy a DMA dispatched at the very instant an engine
// picks a descriptor left a delta notification that cancelled the engine's timed wake-up for the
// end of that descriptor, so the engine never ran again ("simulation cannot finish").
TEST_CASE("timing: a descriptor pushed as its engine starts another does not lose the engine's wake-up") {
    RunConfig cfg = test::default_config({{"hardware.dma.min_queue_occupancy_ns", "20000"}});
    GeneratedKernel k = cfg.generate();
    SimResult r;
    REQUIRE_NOTHROW(r = simulate(cfg.hw, k.trace, SimOptions{}));
    // every queue holds each of its DMAs >= 20 us: the queue loading x (64 DMAs) alone takes 63 of them
    CHECK(r.kernel_ns >= 63 * 20000.0);
}

TEST_CASE("timing: lnc=2 with a 100 us queue occupancy finishes") {
    RunConfig cfg = test::default_config({{"lnc", "2"}, {"hardware.dma.min_queue_occupancy_ns", "100000"}});
    GeneratedKernel k = cfg.generate();
    SimResult r;
    REQUIRE_NOTHROW(r = simulate(cfg.hw, k.trace, SimOptions{}));
    CHECK(r.kernel_ns >= 100000.0);
}

TEST_CASE("timing: each core's SBUF peak is its highest byte touched, and a region past the buffer is an error") {
    Trace t;
    t.kernel = "hand";
    t.num_cores = 2;
    for (uint8_t core : {0, 1}) {
        Instruction a;
        a.core = core;
        a.engine = Engine::Act;
        a.opcode = Opcode::Activation;
        a.partitions = 128;
        a.free_elems = 64;
        a.srcs = {sb(core, 128, 0, 256)};
        a.dsts = {sb(core, 128, core == 0 ? 1024 : 4096, 256)};  // highest byte 1280 / 4352
        a.tag.what = "in bounds";
        t.append(a);
    }
    RunConfig cfg = test::default_config();
    const SimResult r = simulate(cfg.hw, t, SimOptions{});
    CHECK(r.sbuf_peak_bytes == std::vector<uint64_t>{1280, 4352});

    Instruction past = t.instructions()[1];
    past.dsts = {sb(1, 128, cfg.hw.sbuf.bytes_per_partition - 128, 256)};  // 128 bytes past the end
    past.tag.what = "past the end";
    t.append(past);
    try {
        simulate(cfg.hw, t, SimOptions{});
        FAIL("no error for an SBUF region past the buffer");
    } catch (const std::runtime_error& e) {
        const std::string m = e.what();
        CHECK_THAT(m, Catch::Contains("instruction 2 (past the end) on core 1 touches SBUF partitions [0, 128)"));
        CHECK_THAT(m, Catch::Contains("outside the 128 x " + std::to_string(cfg.hw.sbuf.bytes_per_partition) + " B buffer"));
    }
}

TEST_CASE("one process simulates many times: each run in a fresh SystemC context, the same result as alone") {
    // The second and third simulations build their modules in new contexts; the first config
    // simulated again gives exactly its first result.
    const RunConfig a = load_run_config(kSrc + "/configs/calibration/m4_vector_add_free2.yaml");
    const RunConfig b = load_run_config(kSrc + "/configs/calibration/m1_dma_copy.yaml");
    const GeneratedKernel ka = a.generate(), kb = b.generate();
    const SimResult first = simulate(a.hw, ka.trace, SimOptions{});
    const SimResult other = simulate(b.hw, kb.trace, SimOptions{});
    simulate(b.hw, kb.trace, SimOptions{});  // its context deleted by the next: the process still exits cleanly
    const SimResult again = simulate(a.hw, ka.trace, SimOptions{});
    CHECK(simulated_in_this_process());
    CHECK(other.kernel_ns != first.kernel_ns);
    CHECK(again.kernel_ns == first.kernel_ns);
    REQUIRE(again.timing.size() == first.timing.size());
    for (size_t i = 0; i < first.timing.size(); ++i) {
        CHECK(again.timing[i].start_ns == first.timing[i].start_ns);
        CHECK(again.timing[i].end_ns == first.timing[i].end_ns);
    }
}
