// The calibration kernels twice: the C++ generators (kernels/calibration) and their NKI versions
// (kernels/nki/examples/calibration.py, vector_add.py) traced by the frontend. Every row of
// configs/calibration/measurements.yaml whose kernel is dma_copy, activation, vector_op or
// vector_add is rewritten as a `kernel: nki` row (its config's section, with the row's `set:`
// keys applied, becoming the NKI function's arguments), and `bnsim calibrate` must land each NKI
// row on the simulated figure of the C++ row: the measured instructions are the ones the NKI
// kernel names `measured...`.
#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <string>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "cli_run.h"
#include "test_util.h"

using namespace bnsim::test;

namespace nki_cal_test {

using json = nlohmann::json;

const std::string kCalRoot = BNSIM_SOURCE_DIR;
const std::string kCalDir = kCalRoot + "/configs/calibration/";

YAML::Node tensor(const std::vector<int64_t>& shape, const std::string& dtype) {
    YAML::Node t;
    for (int64_t d : shape) t["shape"].push_back(d);
    t["dtype"] = dtype;
    return t;
}

std::string text(const YAML::Node& n, const char* key, const std::string& dflt) {
    return n[key] ? n[key].as<std::string>() : dflt;
}

// The NKI run config of one calibration config with a row's `set:` applied; "" for kernels
// without an NKI version here.
std::string nki_config(const std::string& config, const YAML::Node& set, const std::string& out_path) {
    YAML::Node c = YAML::LoadFile(kCalDir + config);
    const std::string kernel = c["kernel"].as<std::string>();
    if (kernel != "dma_copy" && kernel != "activation" && kernel != "vector_op" && kernel != "vector_add") return "";
    YAML::Node args = YAML::Clone(c[kernel]);
    if (set)
        for (auto it = set.begin(); it != set.end(); ++it) {
            const std::string k = it->first.as<std::string>();
            REQUIRE(k.rfind(kernel + ".", 0) == 0);
            args[k.substr(kernel.size() + 1)] = it->second;
        }
    const int64_t P = args["partitions"] ? args["partitions"].as<int64_t>() : (kernel == "dma_copy" ? 4 : 128);
    const int64_t free = args["free"] ? args["free"].as<int64_t>() : 1024;
    const std::string dtype = text(args, "dtype", kernel == "dma_copy" ? "bfloat16" : "float32");
    std::string function = kernel, source = kCalRoot + "/kernels/nki/examples/calibration.py";
    if (kernel == "dma_copy") {
        if (text(args, "direction", "hbm_to_sbuf") == "hbm_to_sbuf") {
            const int64_t count = args["count"] ? args["count"].as<int64_t>() : 1;
            args["in"] = tensor({count * P, free}, dtype);
        }
    } else if (kernel == "activation") {
        if (text(args, "src", "sbuf") != "psum") args["in"] = tensor({P, free}, dtype);
        const int b = args["broadcasts"] ? args["broadcasts"].as<int>() : 0;
        if (b > 0) args["scale"] = tensor({P, 1}, "float32");
        if (b > 1) args["bias"] = tensor({P, 1}, "float32");
    } else if (kernel == "vector_op") {
        if (text(args, "src", "sbuf") != "psum") args["in0"] = tensor({P, free}, dtype);
        if (text(args, "op", "tensor_copy") == "tensor_tensor") args["in1"] = tensor({P, free}, dtype);
    } else {
        REQUIRE(text(args, "op", "tensor_tensor") == "tensor_tensor");
        const int64_t n = args["n"].as<int64_t>();
        YAML::Node a;
        a["a"] = tensor({P, n / P}, dtype);
        a["b"] = tensor({P, n / P}, dtype);
        a["free"] = free;
        args = a;
        source = kCalRoot + "/kernels/nki/examples/vector_add.py";
    }
    YAML::Node out;
    out["hardware"] = "trn2";
    out["kernel"] = "nki";
    out["nki"]["source"] = source;
    out["nki"]["function"] = function;
    out["nki"]["args"] = args;
    std::ofstream(out_path) << YAML::Dump(out) << "\n";
    return out_path;
}

std::map<std::string, double> simulated(const std::string& measurements) {
    const CliResult r = run_bnsim({"calibrate", "--json", "--measurements", measurements}, CliOptions{600, "", 0});
    INFO(r.err);
    REQUIRE((r.exit_code == 0 || r.exit_code == 1));
    std::map<std::string, double> out;
    const json j = json::parse(r.out);
    for (const auto& row : j.at("rows")) out[row.at("id").get<std::string>()] = row.at("simulated").get<double>();
    return out;
}

}  // namespace nki_cal_test

TEST_CASE("the NKI versions of the calibration kernels reproduce their calibrate rows") {
    using namespace nki_cal_test;
    const std::string dir = make_temp_dir("bnsim_nki_cal");
    const YAML::Node data = YAML::LoadFile(kCalDir + "measurements.yaml");
    YAML::Node rows;
    int n = 0;
    for (const auto& row : data["rows"]) {
        const std::string id = row["id"].as<std::string>();
        const std::string cfg = nki_config(row["config"].as<std::string>(), row["set"], dir + "/" + id + ".yaml");
        if (cfg.empty()) continue;
        YAML::Node r = YAML::Clone(row);
        r["config"] = cfg;
        r.remove("set");
        if (row["baseline"]) {
            const std::string base = nki_config(row["baseline"].as<std::string>(), row["set"], dir + "/" + id + ".base.yaml");
            REQUIRE(!base.empty());
            r["baseline"] = base;
        }
        rows.push_back(r);
        ++n;
    }
    CHECK(n >= 60);  // M1-M8's dma_copy, activation, vector_op and vector_add rows
    YAML::Node out;
    out["tolerance_pct"] = data["tolerance_pct"];
    out["rows"] = rows;
    std::ofstream(dir + "/measurements.yaml") << YAML::Dump(out) << "\n";
    const auto cpp = simulated(kCalDir + "measurements.yaml");
    const auto nki = simulated(dir + "/measurements.yaml");
    REQUIRE(nki.size() == size_t(n));
    for (const auto& [id, v] : nki) {
        INFO(id);
        REQUIRE(cpp.count(id));
        CHECK(v == Approx(cpp.at(id)).epsilon(1e-12));
    }
}

TEST_CASE("vector_add's dge key: each descriptor mode simulates as the NKI kernel with that mode") {
    // Two independent routes to one trace: the C++ generator's `vector_add.dge` and the NKI
    // frontend's `nki.dge` for the same FREE_DIM 2 kernel (configs/nki/vector_add.yaml). The
    // default is hardware (neuronx-cc's default on trn2); pre-computed descriptors (none) skip
    // the DGE issues the Sync engine's block serializes, and are faster.
    std::map<std::string, double> lat;
    for (const std::string mode : {"none", "hardware", "software"}) {
        int st = 0;
        const std::string cpp = bnsim_output("run " + nki_cal_test::kCalDir + "m4_vector_add_free2.yaml --json --set vector_add.dge=" + mode, &st);
        REQUIRE(st == 0);
        const std::string nki = bnsim_output("run " + nki_cal_test::kCalRoot + "/configs/nki/vector_add.yaml --json --set nki.dge=" + mode, &st);
        REQUIRE(st == 0);
        lat[mode] = nlohmann::json::parse(cpp)["latency_ns"].get<double>();
        CHECK(lat[mode] == nlohmann::json::parse(nki)["latency_ns"].get<double>());
    }
    int st = 0;
    const std::string dflt = bnsim_output("run " + nki_cal_test::kCalDir + "m4_vector_add_free2.yaml --json", &st);
    REQUIRE(st == 0);
    CHECK(nlohmann::json::parse(dflt)["latency_ns"].get<double>() == lat["hardware"]);
    CHECK(lat["hardware"] > lat["none"]);
    // The C++ kernel's buffers and the frontend's loop_buffers are one estimate: equal at 1 as at 4.
    const std::string cpp1 = bnsim_output("run " + nki_cal_test::kCalDir + "m4_vector_add_free2.yaml --json --set vector_add.buffers=1", &st);
    REQUIRE(st == 0);
    const std::string nki1 = bnsim_output("run " + nki_cal_test::kCalRoot + "/configs/nki/vector_add.yaml --json --set nki.loop_buffers=1", &st);
    REQUIRE(st == 0);
    CHECK(nlohmann::json::parse(cpp1)["latency_ns"].get<double>() == nlohmann::json::parse(nki1)["latency_ns"].get<double>());
    CHECK(nlohmann::json::parse(cpp1)["latency_ns"].get<double>() > lat["hardware"]);
}
