// A DMA engine's shortcuts (runs pushed whole with their descriptor time, landing latency and
// HBM stripe check worked out once, the round-robin scan starting from a remembered place in the
// list of busy queues) against a reference engine written straight from the rule
// (models/dma_engine.h): descriptors queued one by one, every queue scanned round-robin from the
// pointer, each descriptor priced when it starts. Same decision times, same run starts and
// landings, to the last bit.
#include <catch2/catch.hpp>

#include <deque>
#include <random>
#include <vector>

#include "models/action_queue.h"
#include "models/dma_engine.h"
#include "sim/config/run_config.h"

using namespace bnsim;

namespace {

struct RunEvent {
    bool moved;  // run_moved (else run_started)
    uint32_t dma, count;
    double ns;
    bool operator==(const RunEvent& o) const { return moved == o.moved && dma == o.dma && count == o.count && ns == o.ns; }
};

struct Log : DescriptorSinkIF {
    std::vector<RunEvent> events;
    void run_started(uint32_t dma, double start_ns) override { events.push_back({false, dma, 0, start_ns}); }
    void run_moved(uint32_t dma, uint32_t count, double landed_ns) override { events.push_back({true, dma, count, landed_ns}); }
};

class ReferenceEngine {
public:
    ReferenceEngine(const DmaLifecycle& rule, const TickClock& clock, Hbm& hbm, Log& log)
        : rule_(rule), clock_(clock), hbm_(hbm), log_(log), queues_(size_t(rule.hw().dma.queues_per_engine)) {}

    void push(const DmaRun& r, Ticks visible) {
        runs_.push_back({r.count, 0, 0.0});
        std::deque<Desc>& q = queues_[r.first.queue].descs;
        auto at = q.end();
        while (at != q.begin() && std::prev(at)->visible > visible) --at;
        std::vector<Desc> descs;
        DmaDescriptor d = r.first;
        // The run's rows go as packets of up to dma.packet_bytes (whole rows, at least one): the
        // first row of each pays the descriptor's overhead.
        const uint32_t cap = uint32_t(rule_.hw().dma.packet_bytes);
        const uint32_t per_packet = r.count > 1 && cap >= r.first.bytes && r.first.bytes > 0 ? std::min(r.count, cap / r.first.bytes) : 1;
        for (uint32_t k = 0; k < r.count; ++k, d.hbm_addr += r.stride)
            descs.push_back({d, visible, runs_.size() - 1, k % per_packet == 0});
        q.insert(at, descs.begin(), descs.end());
        if (!busy_ && visible < next_) next_ = visible;
    }
    Ticks next() const { return next_; }

    void decide() {
        const Ticks t = next_;
        const double now = clock_.ns(t);
        busy_ = false;
        const size_t nq = queues_.size();
        Ticks arrival = kNever;
        bool waiting = false;
        double wake = 0;
        for (size_t k = 0; k < nq; ++k) {
            const size_t qi = (next_queue_ + k) % nq;
            Queue& q = queues_[qi];
            if (q.descs.empty()) continue;
            if (q.descs.front().visible > t) {
                arrival = std::min(arrival, q.descs.front().visible);
                continue;
            }
            const DmaDescriptor d = q.descs.front().d;
            const bool ready = !q.started || d.dma == q.last_dma || now + kTimeEpsNs >= q.ready_at;
            if (!ready) {
                if (!waiting || q.ready_at < wake) wake = q.ready_at;
                waiting = true;
                continue;
            }
            const size_t run = q.descs.front().run;
            const bool opens_packet = q.descs.front().opens_packet;
            q.descs.pop_front();
            Run& r = runs_[run];
            if (r.moved++ == 0) log_.run_started(d.dma, now);
            if (!q.started || d.dma != q.last_dma) {
                q.started = true;
                q.last_dma = d.dma;
                q.ready_at = rule_.next_dma_at(now);
            }
            double done = now + (opens_packet ? rule_.descriptor_ns(d.bytes) : d.bytes / rule_.hw().dma.engine_bandwidth_gbps);
            if (d.hbm_bytes) done = std::max(done, hbm_.transfer(d.hbm_addr, d.hbm_bytes, d.hbm_write, now));
            r.landed = std::max(r.landed, done + rule_.landing_ns(d));
            if (r.moved == r.count) log_.run_moved(d.dma, r.count, r.landed);
            busy_ = true;
            next_ = t + clock_.delay(done - now);
            next_queue_ = (qi + 1) % nq;
            return;
        }
        next_ = std::min(waiting ? t + clock_.delay(std::max(wake - now, 0.0)) : kNever, arrival);
    }

private:
    struct Desc {
        DmaDescriptor d;
        Ticks visible;
        size_t run;
        bool opens_packet;
    };
    struct Queue {
        std::deque<Desc> descs;
        bool started = false;
        uint32_t last_dma = 0;
        double ready_at = 0;
    };
    struct Run {
        uint32_t count, moved;
        double landed;
    };
    const DmaLifecycle& rule_;
    const TickClock& clock_;
    Hbm& hbm_;
    Log& log_;
    std::vector<Queue> queues_;
    std::vector<Run> runs_;
    size_t next_queue_ = 0;
    bool busy_ = false;
    Ticks next_ = kNever;
};

}  // namespace

TEST_CASE("DMA engine: decisions equal a descriptor-by-descriptor reference engine's on seeded runs") {
    HwConfig hw = load_run_config(std::string(BNSIM_SOURCE_DIR) + "/configs/default.yaml", {}).hw;
    hw.hbm.bandwidth_gbps = 40;  // slower than two engines: the channels, not the engine, often bind
    const DmaLifecycle rule(hw);
    const TickClock clock;
    Hbm hbm("hbm", hw.hbm), ref_hbm("ref_hbm", hw.hbm);
    Sbuf sbuf("sbuf", hw.sbuf, 0);
    Log log, ref_log;
    DmaEngine engine(rule, clock, hbm, sbuf, log, 0);
    ReferenceEngine ref(rule, clock, ref_hbm, ref_log);
    const uint64_t stripe = hw.hbm.interleave_bytes * uint64_t(hw.hbm.channels);
    const uint32_t sizes[] = {4, 32, 256, 2048, 16384};
    Ticks decided = 0;  // descriptors are pushed after the decisions already made
    uint32_t dma = 0;
    for (uint32_t seed = 1; seed <= 4; ++seed) {
        std::mt19937 rng(seed);
        for (int step = 0; step < 30000; ++step) {
            if (rng() % 3 == 0 || engine.next() == kNever) {
                // A DMA's run on this engine: a few queues, mostly aligned rows at a whole-stripe
                // pitch, some narrow or unaligned ones, some SBUF to SBUF; mostly in arrival order.
                DmaRun r;
                r.first.dma = ++dma;
                r.first.queue = uint16_t(rng() % 5);
                r.first.bytes = sizes[rng() % 5];
                const bool sbuf_to_sbuf = rng() % 8 == 0;
                r.first.hbm_bytes = sbuf_to_sbuf ? 0 : r.first.bytes;
                r.first.hbm_write = rng() % 2 == 0;
                r.first.sbuf_side = sbuf_to_sbuf || rng() % 4 != 0;
                r.first.hbm_addr = rng() % 4 == 0 ? rng() % 100000 : stripe * (rng() % 1000);
                r.count = 1 + rng() % 8;
                r.stride = rng() % 4 == 0 ? 4 + rng() % 512 : stripe * (1 + rng() % 8);
                const Ticks visible = decided + 1 + clock.delay(double(rng() % 3000));
                engine.push(r, visible);
                ref.push(r, visible);
            } else {
                decided = engine.next();
                engine.decide();
                ref.decide();
            }
            REQUIRE(engine.next() == ref.next());
            REQUIRE(log.events.size() == ref_log.events.size());
        }
        CHECK(log.events == ref_log.events);
        CHECK(hbm.busy_ns() == ref_hbm.busy_ns());
        CHECK(hbm.bytes_read() == ref_hbm.bytes_read());
        CHECK(hbm.bytes_written() == ref_hbm.bytes_written());
    }
}
