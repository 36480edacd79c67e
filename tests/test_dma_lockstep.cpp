// A core's DMA engines decided as a lockstep group (models/dma_engine.h, DmaScheduler::add_block)
// against the same engines decided one by one (DmaScheduler::add_engine, each run pushed on its
// own engine): the same DMA starts and landings in the same order, the same busy time,
// descriptors and bytes per engine, the same HBM totals, to the last bit. Seeded DMAs, mostly
// alike on every engine (as a [128, F] copy is), some on a few engines only or with one engine's
// run different (the block splits), on HBM stacks slow enough that lanes leave step, and two
// cores sharing a stack; grouped as bnsim runs them and rejoining lanes due alike at every chance.
#include <catch2/catch.hpp>

#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "models/dma_scheduler.h"
#include "sim/config/run_config.h"
#include "tests/test_util.h"

using namespace bnsim;

namespace lockstep_test {

// What a DMA controller makes of the runs it hears: each DMA's first start, and its last landing
// once all its descriptors have moved, in the order they happen.
struct DmaEvents : DescriptorSinkIF {
    struct Event {
        bool finished;
        uint32_t dma;
        double ns;
        bool operator==(const Event& o) const { return finished == o.finished && dma == o.dma && ns == o.ns; }
    };
    std::vector<Event> events;
    std::map<uint32_t, uint32_t> remaining;  // descriptors still to move, per DMA
    std::map<uint32_t, double> landed;
    std::map<uint32_t, bool> started;
    void run_started(uint32_t dma, double start_ns) override {
        if (!started[dma]) events.push_back({false, dma, start_ns});
        started[dma] = true;
    }
    void run_moved(uint32_t dma, uint32_t count, double landed_ns) override {
        landed[dma] = std::max(landed[dma], landed_ns);
        REQUIRE(remaining[dma] >= count);
        if ((remaining[dma] -= count) == 0) events.push_back({true, dma, landed[dma]});
    }
};

// One HBM stack and `cores` cores of DMA engines: grouped in blocks (rejoining lanes due alike
// at every chance if `eager`), or engine by engine.
struct World {
    World(const std::string& name, const HwConfig& hw, size_t cores, bool grouped, bool eager = false)
        : rule(hw), hbm((name + "_hbm").c_str(), hw.hbm), sched((name + "_dma").c_str(), hw, hbm) {
        if (eager) sched.rejoin_eagerly();
        const size_t n = size_t(hw.dma.engines_per_core);
        for (size_t c = 0; c < cores; ++c) {
            sbufs.push_back(std::make_unique<Sbuf>((name + "_sbuf" + std::to_string(c)).c_str(), hw.sbuf, 0));
            sinks.push_back(std::make_unique<DmaEvents>());
            if (grouped) {
                blocks.push_back(sched.add_block(n, rule, *sbufs[c], *sinks[c]));
                engines.push_back(sched.block_engines(blocks.back()));
            } else {
                engines.emplace_back();
                for (size_t e = 0; e < n; ++e) engines[c].push_back(&sched.add_engine(rule, *sbufs[c], *sinks[c]));
            }
        }
    }
    void push(size_t core, const std::vector<DmaRun>& runs, double reach_ns) {
        ++pushed[core];
        for (const DmaRun& r : runs) sinks[core]->remaining[r.first.dma] += r.count;
        if (!blocks.empty())
            sched.push_dma(blocks[core], runs.data(), runs.size(), reach_ns);
        else
            for (const DmaRun& r : runs) sched.push(*engines[core][r.first.engine], r, reach_ns);
    }
    DmaLifecycle rule;
    Hbm hbm;
    DmaScheduler sched;
    std::vector<std::unique_ptr<Sbuf>> sbufs;
    std::vector<std::unique_ptr<DmaEvents>> sinks;
    std::vector<size_t> blocks;
    std::vector<std::vector<DmaEngine*>> engines;
    std::map<size_t, size_t> pushed;  // DMAs per core
};

// Pushes seeded DMAs to a grouped and an engine-by-engine world alike, from SystemC time.
struct Driver : sc_core::sc_module {
    SC_HAS_PROCESS(Driver);
    Driver(sc_core::sc_module_name name, const HwConfig& hw, World& a, World& b, World& c, size_t cores, uint32_t seed)
        : sc_core::sc_module(name), hw_(hw), a_(a), b_(b), c_(c), cores_(cores), rng_(seed) {
        SC_THREAD(run);
    }
    void run() {
        const uint32_t engines = uint32_t(hw_.dma.engines_per_core);
        const uint64_t stripe = uint64_t(hw_.hbm.interleave_bytes) * uint64_t(hw_.hbm.channels);
        const uint32_t sizes[] = {32, 256, 512, 2048, 16384};
        for (uint32_t dma = 1; dma <= 1500; ++dma) {
            // Bursts of DMAs, and now and then a pause long enough for every engine to go idle.
            const double pause = dma % 50 == 0 ? 2e6 : rng_() % 4 == 0 ? rng_() % 3000 : rng_() % 200;
            wait(sc_core::sc_time(pause, sc_core::SC_NS));
            DmaRun r;
            r.first.dma = dma;
            r.first.queue = uint16_t(rng_() % 4);
            r.first.bytes = sizes[rng_() % 5];
            const bool sbuf_to_sbuf = rng_() % 10 == 0;
            r.first.hbm_bytes = sbuf_to_sbuf ? 0 : r.first.bytes;
            r.first.hbm_write = rng_() % 2 == 0;
            r.first.sbuf_side = sbuf_to_sbuf || rng_() % 4 != 0;
            r.first.hbm_addr = rng_() % 8 == 0 ? rng_() % 100000 : stripe * (rng_() % 1000);
            r.count = 1 + rng_() % 8;
            r.stride = rng_() % 6 == 0 ? 4 + rng_() % 512 : stripe * (1 + rng_() % 4);
            // Lanes a fixed step apart: mostly whole granules (a run's rows further on), some not.
            const uint64_t lane_stride = rng_() % 6 == 0 ? 64 + rng_() % 4096 : r.count * r.stride;
            const uint32_t lanes = rng_() % 10 == 0 ? 1 + rng_() % engines : engines;
            std::vector<DmaRun> runs;
            for (uint32_t k = 0; k < lanes; ++k) {
                DmaRun lane = r;
                lane.first.engine = uint16_t(k);
                lane.first.hbm_addr = r.first.hbm_addr + k * lane_stride;
                runs.push_back(lane);
            }
            if (rng_() % 20 == 0) runs[rng_() % lanes].count = 1 + rng_() % 8;  // one engine's run differs
            const size_t core = rng_() % cores_;
            const double reach = sc_core::sc_time_stamp().to_seconds() * 1e9 + hw_.dma.dispatch_ns + double(rng_() % 50);
            a_.push(core, runs, reach);
            b_.push(core, runs, reach);
            c_.push(core, runs, reach);
        }
    }
    const HwConfig& hw_;
    World& a_;
    World& b_;
    World& c_;
    size_t cores_;
    std::mt19937 rng_;
};

}  // namespace lockstep_test

TEST_CASE("DMA lockstep groups: decisions equal the engines deciding one by one") {
    using namespace lockstep_test;
    const HwConfig base = load_run_config(std::string(BNSIM_SOURCE_DIR) + "/configs/default.yaml", {}).hw;
    // HBM stacks from fast (the engines bind, lanes stay in step) to slow (lanes leave step), one
    // with two cores sharing it, one with a granule the lanes' step does not keep.
    struct Case {
        double hbm_gbps;
        size_t cores;
        double interleave;
    };
    const Case cases[] = {{725, 1, 256}, {725, 2, 256}, {200, 1, 256}, {40, 2, 256}, {725, 1, 4096}};
    std::vector<HwConfig> hws;
    for (const Case& c : cases) {
        HwConfig hw = base;
        hw.hbm.bandwidth_gbps = c.hbm_gbps;
        hw.hbm.interleave_bytes = c.interleave;
        hws.push_back(hw);
    }
    std::vector<std::unique_ptr<World>> grouped, eager, plain;
    std::vector<std::unique_ptr<Driver>> drivers;
    for (size_t i = 0; i < hws.size(); ++i) {
        const std::string n = std::to_string(i);
        grouped.push_back(std::make_unique<World>("grouped" + n, hws[i], cases[i].cores, true));
        eager.push_back(std::make_unique<World>("eager" + n, hws[i], cases[i].cores, true, true));
        plain.push_back(std::make_unique<World>("plain" + n, hws[i], cases[i].cores, false));
        drivers.push_back(std::make_unique<Driver>(("driver" + n).c_str(), hws[i], *grouped[i], *eager[i], *plain[i],
                                                   cases[i].cores, uint32_t(i + 1)));
    }
    test::leak_check_before_systemc_threads();  // hundreds of SystemC threads stay alive to exit
    sc_core::sc_start();
    size_t due_joins = 0, eager_due_joins = 0;
    for (size_t i = 0; i < hws.size(); ++i)
        for (const World* gw : {grouped[i].get(), eager[i].get()}) {
            INFO("case " << i << (gw == eager[i].get() ? ", rejoining eagerly" : ""));
            const World& g = *gw;
            const World& p = *plain[i];
            for (size_t c = 0; c < cases[i].cores; ++c) {
                CHECK(g.sinks[c]->events.size() == 2 * g.pushed.at(c));  // every DMA started and finished
                CHECK(g.sinks[c]->events == p.sinks[c]->events);
                for (size_t e = 0; e < g.engines[c].size(); ++e) {
                    CHECK(g.engines[c][e]->busy_ns() == p.engines[c][e]->busy_ns());
                    CHECK(g.engines[c][e]->descriptors() == p.engines[c][e]->descriptors());
                    CHECK(g.engines[c][e]->bytes() == p.engines[c][e]->bytes());
                    CHECK(g.engines[c][e]->queued() == 0);
                }
                CHECK(g.sbufs[c]->dma_bytes_read() == p.sbufs[c]->dma_bytes_read());
                CHECK(g.sbufs[c]->dma_bytes_written() == p.sbufs[c]->dma_bytes_written());
            }
            CHECK(g.hbm.busy_ns() == p.hbm.busy_ns());
            CHECK(g.hbm.bytes_read() == p.hbm.bytes_read());
            CHECK(g.hbm.bytes_written() == p.hbm.bytes_written());
            // Both ways were taken: blocks split (lanes out of step, or a DMA not alike on every
            // engine) and joined again.
            CHECK(g.sched.splits() > 0);
            CHECK(g.sched.joins() > 0);
            (gw == eager[i].get() ? eager_due_joins : due_joins) += g.sched.due_joins();
        }
    // Some joins took lanes due alike, not idle (after HBM contention had split them); rejoining
    // eagerly, many more.
    CHECK(due_joins > 0);
    CHECK(eager_due_joins > 4 * due_joins);
}
