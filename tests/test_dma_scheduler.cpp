// The DMA scheduler advances every engine on an HBM stack together, a dispatch window ahead of
// SystemC time. Simultaneous decisions reserve HBM channels in engine order.
#include <catch2/catch.hpp>

#include <vector>

#include "models/dma_scheduler.h"
#include "sim/config/run_config.h"
#include "tests/test_util.h"

using namespace bnsim;

namespace {

struct Landed {
    uint16_t engine;
    double start, landed;
};

// Each test DMA is one descriptor on the engine of its number: one run.
struct Sink : DescriptorSinkIF {
    std::vector<Landed> seen;
    double start = 0;
    void run_started(uint32_t, double start_ns) override { start = start_ns; }
    void run_moved(uint32_t dma, uint32_t count, double landed_ns) override {
        REQUIRE(count == 1);
        seen.push_back({uint16_t(dma), start, landed_ns});
    }
};

DmaDescriptor hbm_read(uint16_t engine, uint32_t bytes) {
    DmaDescriptor d;
    d.dma = engine;
    d.engine = engine;
    d.bytes = bytes;
    d.hbm_addr = 0;
    d.hbm_bytes = bytes;
    return d;
}

}  // namespace

TEST_CASE("DMA scheduler: descriptors reaching two engines at one instant reserve HBM in engine order") {
    HwConfig hw = load_run_config(std::string(BNSIM_SOURCE_DIR) + "/configs/default.yaml", {}).hw;
    // One slow HBM channel (10 B/ns, below an engine's 23 B/ns): the channel, not the engines, binds.
    hw.hbm.channels = 1;
    hw.hbm.bandwidth_gbps = 10;
    Hbm hbm("hbm", hw.hbm);
    Sbuf sbuf("sbuf", hw.sbuf, 0);
    DmaScheduler dma("dma", hw, hbm);
    const DmaLifecycle rule(hw);
    Sink sink;
    DmaEngine& e0 = dma.add_engine(rule, sbuf, sink);
    DmaEngine& e1 = dma.add_engine(rule, sbuf, sink);
    // Pushed engine 1 first; both reach their queues at 1000 ns.
    dma.push(e1, hbm_read(1, 1000), 1000);
    dma.push(e0, hbm_read(0, 1000), 1000);
    test::leak_check_before_systemc_threads();  // its SystemC threads stay alive to exit
    sc_core::sc_start();
    REQUIRE(rule.descriptor_ns(1000) < 100);  // 1000 B: 51.5 ns on an engine, 100 ns on the channel
    REQUIRE(sink.seen.size() == 2);
    // engine 0 reserves the channel first: moved at 1100, landed the HBM latency later
    CHECK(sink.seen[0].engine == 0);
    CHECK(sink.seen[0].start == Approx(1000));
    CHECK(sink.seen[0].landed == Approx(1100 + hw.hbm.latency_ns));
    // engine 1 starts at the same instant and queues behind it on the channel
    CHECK(sink.seen[1].engine == 1);
    CHECK(sink.seen[1].start == Approx(1000));
    CHECK(sink.seen[1].landed == Approx(1200 + hw.hbm.latency_ns));
    CHECK(e0.busy_ns() == Approx(100));
    CHECK(e1.busy_ns() == Approx(200));
    CHECK(e0.queued() + e1.queued() == 0);
}
