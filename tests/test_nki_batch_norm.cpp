// batch_norm_bwd twice: the C++ trace generator (kernel: batch_norm_bwd) and the NKI kernel
// kernels/nki/examples/batch_norm_bwd.py traced by the frontend (configs/nki/batch_norm_bwd.yaml).
// Over a table of configs (LNC 1 and 2 with channel and batch sharding, fused ReLU with a supplied
// and a recomputed mask, replication, residency on and off, fp32 and bf16, explicit and partial
// memory configs, several channel tiles, odd spatial sizes) the two streams must be the same
// instruction for instruction: engine, opcode, regions, dtypes, DGE mode, every field but the
// tags, the derived edges and the cost row, and the header's tensors; and they must run to the
// same latency. DMA queue numbers included: both follow the one declared rule (tile streams
// numbered by first use per core, the per-channel vectors' transfers on one queue after them;
// docs/nki-frontend.md), the frontend when it writes the trace, the C++ generator in
// number_queues().
#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_run.h"
#include "test_util.h"

using namespace bnsim::test;

namespace nki_bn_test {

using json = nlohmann::json;

const std::string kBnRoot = BNSIM_SOURCE_DIR;

struct BnRow {
    const char* name;
    int64_t B, C, D, H, W;
    const char* dtype;
    int lnc;
    bool fuse_relu, mask;
    std::vector<std::pair<std::string, std::string>> memory;  // f_tile, interleave, direct_x_residency
};

std::vector<std::string> with_sets(std::vector<std::string> args, const std::vector<std::string>& sets) {
    for (const auto& s : sets) args.insert(args.end(), {"--set", s});
    return args;
}

std::vector<json> bn_dump(const std::string& config, const std::vector<std::string>& sets, const std::string& path) {
    const CliResult r = run_bnsim(with_sets({"trace", config, "--dump", path}, sets), CliOptions{120, "", 0});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return read_json_lines(path);
}

json bn_latency(const std::string& config, const std::vector<std::string>& sets) {
    const CliResult r = run_bnsim(with_sets({"run", config, "--json"}, sets), CliOptions{120, "", 0});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return json::parse(r.out).at("latency_ns");
}

std::string shape_text(const BnRow& r, const char* dtype) {
    std::ostringstream s;
    s << "{shape: [" << r.B << ", " << r.C << ", " << r.D << ", " << r.H << ", " << r.W << "], dtype: " << dtype << "}";
    return s.str();
}

std::vector<std::string> cpp_sets(const BnRow& r) {
    std::vector<std::string> s = {"shape.B=" + std::to_string(r.B), "shape.C=" + std::to_string(r.C),
                                  "shape.D=" + std::to_string(r.D), "shape.H=" + std::to_string(r.H),
                                  "shape.W=" + std::to_string(r.W), std::string("dtype=") + r.dtype,
                                  "lnc=" + std::to_string(r.lnc), std::string("fuse_relu=") + (r.fuse_relu ? "true" : "false"),
                                  std::string("relu_mask=") + (r.mask ? "supplied" : "none")};
    if (!r.memory.empty()) {
        std::string m = "memory={";
        for (size_t i = 0; i < r.memory.size(); ++i) m += (i ? ", " : "") + r.memory[i].first + ": " + r.memory[i].second;
        s.push_back(m + "}");
    }
    return s;
}

std::vector<std::string> nki_sets(const BnRow& r) {
    const std::string t = shape_text(r, r.dtype);
    const std::string c = std::string("{shape: [") + std::to_string(r.C) + "], dtype: float32}";
    const std::string c1 = std::string("{shape: [") + std::to_string(r.C) + ", 1], dtype: float32}";
    std::vector<std::string> s = {"lnc=" + std::to_string(r.lnc), "nki.args.dy=" + t, "nki.args.x_in=" + t,
                                  "nki.args.means=" + c, "nki.args.variances=" + c, "nki.args.gamma=" + c1,
                                  "nki.args.beta=" + c1,
                                  std::string("nki.args.fuse_relu=") + (r.fuse_relu ? "true" : "false")};
    if (r.mask) s.push_back("nki.args.relu_mask=" + shape_text(r, "uint8"));
    for (const auto& [k, v] : r.memory) s.push_back("nki.args." + k + "=" + v);
    return s;
}

// Everything two implementations must agree on: all but the tags, the derived edges and the
// cost row.
json bn_comparable(json ins) {
    ins.erase("tag");
    ins.erase("deps");
    ins.erase("cost_row");
    return ins;
}

void bn_same_stream(const std::vector<json>& cpp, const std::vector<json>& nki) {
    REQUIRE(cpp.size() == nki.size());
    CHECK(cpp[0].at("tensors") == nki[0].at("tensors"));
    CHECK(cpp[0].at("cores") == nki[0].at("cores"));
    for (size_t i = 1; i < cpp.size(); ++i) {
        INFO("instruction " << i - 1);
        REQUIRE(bn_comparable(cpp[i]) == bn_comparable(nki[i]));
    }
}

}  // namespace nki_bn_test

TEST_CASE("the NKI batch_norm_bwd traces the C++ generator's stream instruction for instruction") {
    using namespace nki_bn_test;
    using M = std::vector<std::pair<std::string, std::string>>;
    const std::vector<BnRow> rows = {
        {"bf16 replication 2 (C=64)", 4, 64, 1, 8, 8, "bfloat16", 1, false, false, {}},
        {"fp32 replication B=64 C=64", 64, 64, 1, 8, 8, "float32", 1, false, false, {}},
        {"lnc 2 channel sharding (C=256)", 2, 256, 1, 4, 4, "float32", 2, false, false, {}},
        {"lnc 2 batch sharding, sendrecv (C=96)", 4, 96, 1, 8, 8, "bfloat16", 2, false, false, {}},
        {"lnc 2 batch sharding with replication", 4, 64, 1, 8, 8, "bfloat16", 2, false, false, {}},
        {"fuse_relu, supplied mask", 2, 128, 1, 8, 8, "bfloat16", 1, true, true, {}},
        {"fuse_relu, recomputed mask, replication 4", 4, 32, 1, 8, 8, "bfloat16", 1, true, false, {}},
        {"residency off", 4, 128, 1, 8, 8, "float32", 1, false, false, M{{"direct_x_residency", "false"}}},
        {"explicit f_tile 16 interleave 2, odd spatial 5x7", 2, 128, 1, 5, 7, "bfloat16", 1, false, false,
         M{{"f_tile", "16"}, {"interleave", "2"}}},
        {"C=300 (3 channel tiles) lnc 2, recomputed mask", 2, 300, 1, 4, 4, "bfloat16", 2, true, false, {}},
        {"odd spatial 3x5x7 fp32 (C=40)", 3, 40, 3, 5, 7, "float32", 1, false, false, {}},
        {"lnc 2 batch sharding odd B, mask, residency off", 3, 64, 1, 4, 4, "bfloat16", 2, true, true,
         M{{"f_tile", "8"}, {"direct_x_residency", "false"}}},
        {"partial memory config (interleave 3), mask, C=200", 2, 200, 1, 8, 8, "float32", 1, true, true,
         M{{"interleave", "3"}}},
        {"spatial over MAX_F_TILE (128x128)", 1, 128, 1, 128, 128, "float32", 1, false, false, {}},
    };
    const std::string dir = make_temp_dir("bnsim_nki_bn");
    const std::string cpp_cfg = kBnRoot + "/configs/default.yaml";
    const std::string nki_cfg = kBnRoot + "/configs/nki/batch_norm_bwd.yaml";
    for (const BnRow& r : rows) {
        INFO("config: " << r.name);
        const auto cpp = bn_dump(cpp_cfg, cpp_sets(r), dir + "/cpp.jsonl");
        const auto nki = bn_dump(nki_cfg, nki_sets(r), dir + "/nki.jsonl");
        bn_same_stream(cpp, nki);
        CHECK(bn_latency(cpp_cfg, cpp_sets(r)) == bn_latency(nki_cfg, nki_sets(r)));
    }
}

TEST_CASE("configs/nki/batch_norm_bwd.yaml is the seed shape of configs/default.yaml") {
    using namespace nki_bn_test;
    const std::string dir = make_temp_dir("bnsim_nki_bn_seed");
    const auto cpp = bn_dump(kBnRoot + "/configs/default.yaml", {}, dir + "/cpp.jsonl");
    const auto nki = bn_dump(kBnRoot + "/configs/nki/batch_norm_bwd.yaml", {}, dir + "/nki.jsonl");
    bn_same_stream(cpp, nki);
    CHECK(bn_latency(kBnRoot + "/configs/default.yaml", {}) == bn_latency(kBnRoot + "/configs/nki/batch_norm_bwd.yaml", {}));
}
