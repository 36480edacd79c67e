// The indexed dependency derivation derives exactly the edges of the plain all-pairs rule
// (tests/reference_dependencies.h) on the kernels' real traces and on random region soups.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "reference_dependencies.h"
#include "sim/config/run_config.h"
#include "trace/region_index.h"
#include "tests/source_paths.h"

using namespace bnsim;

namespace {


std::vector<std::vector<uint32_t>> derived(const Trace& t) {
    std::vector<std::vector<uint32_t>> out;
    for (const auto& ins : t.instructions()) out.emplace_back(ins.deps.begin(), ins.deps.end());
    return out;
}

void check_edges_against_reference(const Trace& t) {
    const auto expected = test::reference_dependencies(t);
    const auto got = derived(t);
    REQUIRE(got.size() == expected.size());
    size_t edges = 0;
    for (size_t i = 0; i < got.size(); ++i) {
        INFO("instruction " << i);
        REQUIRE(got[i] == expected[i]);
        edges += got[i].size();
    }
    CHECK(edges > 0);
}

}  // namespace

TEST_CASE("indexed derivation gives the reference edges on batch_norm_bwd configs") {
    using Sets = Overrides;
    const std::vector<std::pair<const char*, Sets>> table = {
        {"seed shape", {}},
        {"C=200", {{"shape.C", "200"}}},
        {"float32", {{"dtype", "float32"}}},
        {"fuse_relu, mask recomputed", {{"fuse_relu", "true"}}},
        {"fuse_relu, mask supplied", {{"fuse_relu", "true"}, {"relu_mask", "supplied"}}},
        {"LNC=2 batch sharding", {{"lnc", "2"}}},
        {"LNC=2 channel sharding", {{"lnc", "2"}, {"shape.C", "384"}}},
        {"LNC=2 redundant", {{"lnc", "2"}, {"shape.B", "1"}}},
        {"LNC=2 channel sharding, odd C, fuse_relu",
         {{"lnc", "2"}, {"shape.C", "300"}, {"shape.B", "3"}, {"fuse_relu", "true"}}},
        {"odd shape", {{"shape", "{B: 5, C: 130, D: 3, H: 7, W: 9}"}}},
        {"odd shape, small tiles",
         {{"shape", "{B: 3, C: 70, D: 1, H: 13, W: 11}"},
          {"memory", "{f_tile: 64, interleave: 3, direct_x_residency: false}"}}},
        {"C=512 D=2, spatial tiles", {{"shape.C", "512"}, {"shape.D", "2"}}},
    };
    for (const auto& [name, sets] : table) {
        SECTION(name) {
            RunConfig cfg = load_run_config(kConfigs + "default.yaml", sets);
            check_edges_against_reference(cfg.generate().trace);
        }
    }
}

TEST_CASE("indexed derivation gives the reference edges on the calibration kernels") {
    int n = 0;
    for (const auto& e : std::filesystem::directory_iterator(kConfigs + "calibration")) {
        if (e.path().filename() == "measurements.yaml") continue;
        INFO(e.path().string());
        Trace t = load_run_config(e.path().string()).generate().trace;
        const auto expected = test::reference_dependencies(t);
        CHECK(derived(t) == expected);
        ++n;
    }
    CHECK(n >= 20);
}

TEST_CASE("indexed derivation gives the reference edges on random regions, degenerate ones included") {
    // Few buffers, many distinct boundaries (so the index must merge grid cells), regions empty
    // along an axis, partial overlaps, two cores and ACT reduce-register chains.
    std::mt19937 rng(12);
    auto pick = [&](uint32_t lo, uint32_t hi) { return std::uniform_int_distribution<uint32_t>(lo, hi)(rng); };
    Trace t;
    t.num_cores = 2;
    HbmTensor h;
    h.name = "h";
    h.rows = 700;
    h.row_bytes = 900;
    const uint32_t tensor = t.add_tensor(h);
    auto region = [&](uint8_t core) {
        Region r;
        if (pick(0, 1)) {
            r = t.hbm(tensor, 0, 1, 0, 1);
            r.core = core;
            r.row_lo = pick(0, 699);
            r.row_hi = std::min<uint32_t>(700, r.row_lo + pick(0, 40));
            r.byte_lo = pick(0, 899);
            r.byte_hi = std::min<uint64_t>(900, r.byte_lo + pick(0, 300));
        } else {
            r.space = Space::Sbuf;
            r.core = pick(0, 5) == 0 ? 1 - core : core;  // the peer's SBUF, as sendrecv reads it
            r.row_lo = pick(0, 127);
            r.row_hi = std::min<uint32_t>(128, r.row_lo + pick(0, 64));
            r.byte_lo = pick(0, 4000) * 4;
            r.byte_hi = r.byte_lo + pick(0, 600) * 4;
        }
        return Operand{r, DType::fp32};
    };
    for (int i = 0; i < 4000; ++i) {
        Instruction in;
        in.core = uint8_t(pick(0, 1));
        in.engine = Engine::Act;
        in.opcode = Opcode::Activation;
        for (uint32_t k = pick(0, 2); k > 0; --k) in.srcs.push_back(region(in.core));
        for (uint32_t k = pick(0, 2); k > 0; --k) in.dsts.push_back(region(in.core));
        if (pick(0, 9) == 0) in.scalar[0].column = region(in.core);
        const uint32_t acc = pick(0, 19);
        in.accumulate = acc == 0 ? Accumulate::reset_accumulate : acc == 1 ? Accumulate::accumulate : Accumulate::none;
        in.acc_readout = acc == 2;
        t.append(in);
    }
    derive_dependencies(t);
    check_edges_against_reference(t);
}

TEST_CASE("region index hands every overlapping access to a query once, across merged cells") {
    std::vector<uint64_t> cuts;
    for (uint64_t c = 0; c <= 1000; ++c) cuts.push_back(c);
    RegionIndex index(cuts, cuts);  // 10^6 cells asked for: merged down to at most kMaxCells
    // a and far are filed in their cells; b and far_wide span more than kWideCells cells and sit
    // on the list every query scans.
    Region a, b, far, far_wide;
    a.row_lo = 10, a.row_hi = 20, a.byte_lo = 10, a.byte_hi = 20;
    b.row_lo = 15, b.row_hi = 16, b.byte_lo = 0, b.byte_hi = 1000;
    far.row_lo = 900, far.row_hi = 902, far.byte_lo = 900, far.byte_hi = 902;
    far_wide.row_lo = 900, far_wide.row_hi = 1000, far_wide.byte_lo = 900, far_wide.byte_hi = 1000;
    index.add(a, 0, true);
    index.add(b, 1, false);
    index.add(far, 2, false);
    index.add(far_wide, 3, true);
    std::vector<uint32_t> seen;
    Region q;
    q.row_lo = 0, q.row_hi = 100, q.byte_lo = 0, q.byte_hi = 100;
    index.for_each_candidate(q, [&](RegionIndex::Access& x) { seen.push_back(x.instr); });
    std::sort(seen.begin(), seen.end());
    // Every overlapping access exactly once; the far filed one never; the far wide one is a
    // near miss the contract allows (callers check overlaps()), still at most once.
    CHECK(seen == std::vector<uint32_t>{0, 1, 3});
    // Writers only: a and far_wide.
    seen.clear();
    index.for_each_writer_candidate(q, [&](const RegionIndex::Access& x) { seen.push_back(x.instr); });
    std::sort(seen.begin(), seen.end());
    CHECK(seen == std::vector<uint32_t>{0, 3});
    // Retired accesses, filed or wide, are not offered again.
    index.for_each_candidate(q, [&](RegionIndex::Access& x) { x.live = x.instr == 1; });
    seen.clear();
    index.for_each_candidate(q, [&](RegionIndex::Access& x) { seen.push_back(x.instr); });
    CHECK(seen == std::vector<uint32_t>{1});
    // A query at the far corner finds the filed far access (and the live wide b, a near miss).
    seen.clear();
    index.for_each_candidate(far, [&](RegionIndex::Access& x) { seen.push_back(x.instr); });
    std::sort(seen.begin(), seen.end());
    CHECK(seen == std::vector<uint32_t>{1, 2});
}
