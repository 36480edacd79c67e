// A DMA's descriptor runs (for_each_run) against its descriptors one by one (for_each_descriptor):
// expanded, each engine's runs must be exactly the descriptors that engine gets, in its order,
// over a table of copy shapes, engine layouts and the row merge on and off; and the plan's
// trains (built from runs) must equal trains summed descriptor by descriptor, and the planner's
// reused plans the plans of DMAs planned alone.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "models/dma_descriptor.h"
#include "models/dma_lifecycle.h"
#include "sim/config/run_config.h"

using namespace bnsim;

namespace {

bool same(const DmaDescriptor& a, const DmaDescriptor& b) {
    return a.dma == b.dma && a.engine == b.engine && a.queue == b.queue && a.bytes == b.bytes &&
           a.hbm_addr == b.hbm_addr && a.hbm_bytes == b.hbm_bytes && a.hbm_write == b.hbm_write &&
           a.sbuf_side == b.sbuf_side;
}

struct Case {
    int engines, rows_per_engine;
    bool merge;
    uint32_t rows;
    uint64_t row_bytes;       // the HBM tensor's row pitch
    uint64_t b0, b1;          // bytes of each row copied
    enum { Load, Store, SbufToSbuf, CastLoad } kind;
};

}  // namespace

TEST_CASE("DMA runs: expanded, each engine's runs are its descriptors in order") {
    const Case cases[] = {
        {16, 8, true, 128, 8192, 0, 8192, Case::Load},      // contiguous rows: one merged descriptor per engine
        {16, 8, true, 128, 16384, 0, 8192, Case::Load},     // strided rows: 8 per engine
        {16, 8, false, 128, 8192, 0, 8192, Case::Store},    // no merge
        {16, 8, true, 100, 256, 0, 256, Case::Load},        // a short last block
        {16, 8, true, 4, 256, 0, 256, Case::Store},         // one engine
        {16, 8, true, 128, 1024, 256, 512, Case::CastLoad}, // u8 -> bf16, strided
        {16, 8, true, 128, 512, 0, 512, Case::CastLoad},    // u8 -> bf16, contiguous
        {16, 8, true, 128, 0, 0, 0, Case::SbufToSbuf},
        {16, 8, false, 77, 0, 0, 0, Case::SbufToSbuf},
        {1, 8, true, 128, 256, 0, 256, Case::Load},         // one engine: every row merges
        {1, 8, false, 128, 512, 0, 256, Case::Load},        // one engine, strided: one long run
        {4, 8, true, 128, 256, 0, 256, Case::Store},        // blocks wrap round the engines
        {4, 8, false, 100, 768, 0, 256, Case::Load},
        {4, 3, true, 128, 1024, 0, 256, Case::Load},
        {16, 1, true, 128, 256, 0, 256, Case::Load},
        {16, 1, false, 128, 4096, 128, 384, Case::Store},
        {2, 128, true, 128, 256, 0, 256, Case::Load},
        {2, 64, true, 128, 256, 0, 256, Case::Load},        // one block per engine, merged
        {2, 64, false, 128, 512, 128, 384, Case::Store},    // one block per engine, strided
        {1, 128, false, 128, 512, 0, 256, Case::Load},      // one engine, one block
        {16, 8, false, 128, 0, 0, 0, Case::SbufToSbuf},
    };
    for (const Case& c : cases) {
        HwConfig hw;
        hw.dma.engines_per_core = c.engines;
        hw.dma.rows_per_engine = c.rows_per_engine;
        hw.dma.queues_per_engine = 16;
        hw.dma.merge_contiguous_rows = c.merge;
        hw.dma.engine_bandwidth_gbps = 23;
        hw.dma.descriptor_overhead_ns = 8.3;  // makes the plan's sums inexact in floating point
        Trace t;
        HbmTensor pad;  // the tested tensor starts past another one
        pad.name = "pad";
        pad.rows = 3;
        pad.row_bytes = 1000;
        t.add_tensor(pad);
        HbmTensor x;
        x.name = "x";
        x.rows = 256;
        x.row_bytes = c.row_bytes;
        const uint32_t tx = c.row_bytes ? t.add_tensor(x) : 0;

        Instruction ins;
        ins.id = 42;
        ins.opcode = Opcode::DmaCopy;
        ins.dma.queue = 5;
        const uint64_t width = c.kind == Case::SbufToSbuf ? 512 : c.b1 - c.b0;
        const uint64_t sbuf_width = c.kind == Case::CastLoad ? 2 * width : width;
        Operand sb = sbuf_operand(0, 0, c.rows, 0, sbuf_width, c.kind == Case::CastLoad ? DType::bf16 : DType::u8);
        Operand hbm;
        if (c.kind != Case::SbufToSbuf) {
            hbm.region = t.hbm(tx, 7, 7 + c.rows, c.b0, c.b1);
            hbm.dtype = DType::u8;
        }
        switch (c.kind) {
        case Case::Load:
        case Case::CastLoad: ins.srcs = {hbm}, ins.dsts = {sb}; break;
        case Case::Store: ins.srcs = {sb}, ins.dsts = {hbm}; break;
        case Case::SbufToSbuf:
            ins.srcs = {sb};
            ins.dsts = {sbuf_operand(0, 0, c.rows, 65536, sbuf_width, DType::u8)};
            break;
        }
        INFO("engines " << c.engines << " rows/engine " << c.rows_per_engine << " merge " << c.merge << " rows "
                        << c.rows << " pitch " << c.row_bytes << " bytes [" << c.b0 << ", " << c.b1 << ") kind "
                        << int(c.kind));

        std::vector<std::vector<DmaDescriptor>> want(size_t(c.engines)), got(size_t(c.engines));
        for_each_descriptor(ins, t, hw, [&](const DmaDescriptor& d) { want[d.engine].push_back(d); });
        size_t runs = 0;
        std::vector<DmaRun> all_runs;
        for_each_run(ins, t, hw, [&](const DmaRun& r) {
            ++runs;
            all_runs.push_back(r);
            REQUIRE(r.count > 0);
            DmaDescriptor d = r.first;
            for (uint32_t k = 0; k < r.count; ++k, d.hbm_addr += r.stride) got[d.engine].push_back(d);
        });
        for (int e = 0; e < c.engines; ++e) {
            INFO("engine " << e);
            REQUIRE(got[size_t(e)].size() == want[size_t(e)].size());
            for (size_t k = 0; k < want[size_t(e)].size(); ++k) CHECK(same(got[size_t(e)][k], want[size_t(e)][k]));
        }
        // A DMA filling one block of rows on every engine is alike on every engine: its runs are
        // the first one's, an address step apart.
        DmaRun first;
        uint64_t lane_stride = 0;
        const bool alike = dma_runs_alike(ins, t, hw, &first, &lane_stride);
        CHECK(alike == (c.rows == uint32_t(c.engines * c.rows_per_engine)));
        if (alike) {
            REQUIRE(all_runs.size() == size_t(c.engines));
            for (size_t e = 0; e < all_runs.size(); ++e) {
                DmaRun want = first;
                want.first.engine = uint16_t(e);
                want.first.hbm_addr += e * lane_stride;
                CHECK(same(all_runs[e].first, want.first));
                CHECK(all_runs[e].count == want.count);
                CHECK(all_runs[e].stride == want.stride);
            }
            if (c.engines == 1 || c.kind == Case::SbufToSbuf) CHECK(lane_stride == 0);
        }
        // Runs collapse rows: never more runs than blocks of rows plus engines.
        CHECK(runs <= (c.rows + uint32_t(c.rows_per_engine) - 1) / uint32_t(c.rows_per_engine) + uint32_t(c.engines));

        // The plan's trains, summed here descriptor by descriptor in row order.
        const DmaLifecycle rule(hw);
        std::vector<DmaTrain> trains(size_t(c.engines));
        for_each_descriptor(ins, t, hw, [&](const DmaDescriptor& d) {
            ++trains[d.engine].descriptors;
            trains[d.engine].work_ns += rule.descriptor_ns(d.bytes);
        });
        const DmaPlan p = rule.plan(ins, t);
        size_t k = 0;
        for (int e = 0; e < c.engines; ++e) {
            if (trains[size_t(e)].descriptors == 0) continue;
            REQUIRE(k < p.trains.size());
            CHECK(p.trains[k].engine == e);
            CHECK(p.trains[k].descriptors == trains[size_t(e)].descriptors);
            CHECK(p.trains[k].work_ns == trains[size_t(e)].work_ns);  // bit for bit
            ++k;
        }
        CHECK(k == p.trains.size());
    }
}

TEST_CASE("DMA runs: a full-height strided copy is one run of 8 rows per engine") {
    HwConfig hw;
    hw.dma.engines_per_core = 16;
    hw.dma.rows_per_engine = 8;
    hw.dma.queues_per_engine = 16;
    hw.dma.merge_contiguous_rows = true;
    Trace t;
    HbmTensor x;
    x.name = "x";
    x.rows = 128;
    x.row_bytes = 65536;
    const uint32_t tx = t.add_tensor(x);
    Instruction ins;
    ins.opcode = Opcode::DmaCopy;
    Operand src;
    src.region = t.hbm(tx, 0, 128, 0, 8192);
    src.dtype = DType::bf16;
    ins.srcs = {src};
    ins.dsts = {sbuf_operand(0, 0, 128, 0, 8192, DType::bf16)};
    std::vector<DmaRun> runs;
    for_each_run(ins, t, hw, [&](const DmaRun& r) { runs.push_back(r); });
    REQUIRE(runs.size() == 16);
    for (uint16_t e = 0; e < 16; ++e) {
        CHECK(runs[e].first.engine == e);
        CHECK(runs[e].count == 8);
        CHECK(runs[e].stride == 65536);
        CHECK(runs[e].first.hbm_addr == t.tensor(tx).base_addr + e * 8 * 65536ull);
        CHECK(runs[e].first.bytes == 8192);
    }
}

TEST_CASE("DMA planner: plans reused across alike DMAs equal each DMA planned alone") {
    // The kernel's DMAs on layouts that reuse plans (a few shapes, strided or merged rows) and
    // on one whose rows do not fit one block per engine (every plan computed).
    const std::vector<Overrides> sets = {
        {},
        {{"shape.C", "256"}},  // full-height column loads and row loads alike in row count
        {{"memory.f_tile", "128"}, {"memory.interleave", "1"}},
        {{"hardware.dma.merge_contiguous_rows", "false"}, {"memory.f_tile", "512"}},
        {{"lnc", "2"}},
        {{"hardware.dma.engines_per_core", "4"}, {"memory.f_tile", "1024"}},
    };
    for (const auto& set : sets) {
        const RunConfig cfg = load_run_config(std::string(BNSIM_SOURCE_DIR) + "/configs/default.yaml", set);
        const GeneratedKernel k = cfg.generate();
        const DmaLifecycle rule(cfg.hw);
        DmaPlanner planner(rule);
        size_t dmas = 0;
        for (const auto& in : k.trace.instructions()) {
            if (!in.is_dma()) continue;
            ++dmas;
            const DmaPlan want = rule.plan(in, k.trace), got = planner.plan(in, k.trace);
            INFO("set " << (set.empty() ? std::string("-") : set[0].first) << " DMA " << in.id);
            REQUIRE(got.dma == want.dma);
            REQUIRE(got.queue == want.queue);
            REQUIRE(got.dge == want.dge);
            REQUIRE(got.shape.rows == want.shape.rows);
            REQUIRE(got.shape.desc_bytes == want.shape.desc_bytes);
            REQUIRE(got.shape.hbm_bytes == want.shape.hbm_bytes);
            REQUIRE(got.shape.hbm_read == want.shape.hbm_read);
            REQUIRE(got.shape.hbm_write == want.shape.hbm_write);
            REQUIRE(got.shape.sbuf_side == want.shape.sbuf_side);
            REQUIRE(got.trains.size() == want.trains.size());
            for (size_t t = 0; t < want.trains.size(); ++t) {
                REQUIRE(got.trains[t].engine == want.trains[t].engine);
                REQUIRE(got.trains[t].descriptors == want.trains[t].descriptors);
                REQUIRE(got.trains[t].work_ns == want.trains[t].work_ns);
            }
        }
        CHECK(dmas > 100);
    }
}
