// bnsim run through the built binary: each run is its own process, so one test can compare
// several simulations (interleave, residency, f_tile, determinism).
#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <sys/wait.h>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "test_util.h"

using json = nlohmann::json;

using bnsim::test::slurp;

namespace {

std::string run_cmd(const std::string& args, int* status = nullptr) {
    const std::string cmd = std::string(BNSIM_BINARY) + " run " + BNSIM_SOURCE_DIR + "/configs/default.yaml " + args +
                            " 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    REQUIRE(p);
    std::string out;
    std::array<char, 4096> buf;
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
    const int st = pclose(p);
    if (status) *status = st;
    else REQUIRE(st == 0);
    return out;
}

json run_json(const std::string& args) { return json::parse(run_cmd("--json " + args)); }


}  // namespace

TEST_CASE("run CLI: the same config twice gives byte-identical JSON and timeline") {
    const std::string t1 = "timing_cli_tl1.json", t2 = "timing_cli_tl2.json";
    const std::string a = run_cmd("--json --timeline " + t1);
    const std::string b = run_cmd("--json --timeline " + t2);
    CHECK(a == b);
    CHECK(slurp(t1) == slurp(t2));
    json j = json::parse(a);
    for (const char* k : {"latency_ns", "phases", "engines", "hbm", "bounds"}) CHECK(j.contains(k));
    CHECK(j["phases"][0].contains("start_ns"));
    CHECK(j["phases"][0].contains("end_ns"));
    CHECK(j["phases"][0]["name"] == "phase 1");
    CHECK(j["engines"]["act"].contains("busy_ns"));
    for (const char* k : {"bytes_read", "bytes_written", "achieved_gbps"}) CHECK(j["hbm"].contains(k));
    for (const char* k : {"hbm_ns", "act_ns", "dve_ns", "sync_ns", "dma_ns"}) CHECK(j["bounds"].contains(k));
    // the timeline is trace-event JSON with named engine and queue tracks, waits and flows
    json tl = json::parse(slurp(t1));
    REQUIRE(tl["traceEvents"].is_array());
    bool act_track = false, queue_track = false, wait = false, flow = false, tile_arg = false;
    for (const auto& e : tl["traceEvents"]) {
        if (e["ph"] == "M" && e["name"] == "thread_name") {
            if (e["args"]["name"] == "act") act_track = true;
            if (e["args"]["name"] == "dma q0") queue_track = true;
        }
        if (e["ph"] == "X" && e["name"] == "wait") wait = true;
        if (e["ph"] == "f") flow = true;
        if (e["ph"] == "X" && e["name"] == "activation" && e["args"].contains("tile") && e["args"].contains("slot") &&
            e["args"].contains("phase"))
            tile_arg = true;
    }
    CHECK(act_track);
    CHECK(queue_track);
    CHECK(wait);
    CHECK(flow);
    CHECK(tile_arg);
    std::remove(t1.c_str());
    std::remove(t2.c_str());
}

TEST_CASE("run CLI: interleave 1 is slower than 2 on the seed shape, and program_order is slower than list") {
    const double i1 = run_json("--set 'memory={f_tile: 4096, interleave: 1}'")["latency_ns"].get<double>();
    const double i2 = run_json("--set 'memory={f_tile: 4096, interleave: 2}'")["latency_ns"].get<double>();
    const double po = run_json("--set 'memory={f_tile: 4096, interleave: 2}' --set schedule=program_order")["latency_ns"]
                          .get<double>();
    CHECK(i1 > 1.2 * i2);
    CHECK(po > 1.2 * i2);
}

TEST_CASE("run CLI: direct_x residency on is never slower than off") {
    for (const char* il : {"1", "2", "4", "7"}) {
        INFO("interleave " << il);
        const std::string m = std::string("--set 'memory={f_tile: 4096, interleave: ") + il;
        const double on = run_json(m + ", direct_x_residency: true}'")["latency_ns"].get<double>();
        const double off = run_json(m + ", direct_x_residency: false}'")["latency_ns"].get<double>();
        CHECK(on <= off);
    }
}

TEST_CASE("run CLI: f_tile 64 is much slower than auto and the report says DMA fixed cost dominates") {
    const json a = run_json("");
    const json t = run_json("--set 'memory={f_tile: 64, interleave: 8}'");
    CHECK(t["latency_ns"].get<double>() > 5 * a["latency_ns"].get<double>());
    CHECK(t["dma_fixed_cost_dominates"] == true);
    CHECK(a["dma_fixed_cost_dominates"] == false);
    bool noted = false;
    for (const auto& n : t["notes"]) noted = noted || n.get<std::string>().find("DMA fixed cost dominates") != std::string::npos;
    CHECK(noted);
    for (const auto& p : t["phases"]) CHECK(p["dma_fixed_cost_dominates"] == true);
    const std::string text = run_cmd("--set 'memory={f_tile: 64, interleave: 8}'");
    CHECK_THAT(text, Catch::Contains("DMA fixed cost dominates"));
}

TEST_CASE("run CLI: text report names the binding unit of each phase") {
    const std::string text = run_cmd("");
    CHECK_THAT(text, Catch::Contains("latency"));
    CHECK_THAT(text, Catch::Matches("(.|\n)*phase 1 .*-bound, [0-9.]+x over its [A-Z-]+ time(.|\n)*"));
    CHECK_THAT(text, Catch::Contains("phase 2"));
    CHECK_THAT(text, Catch::Contains("core0.q0"));
}

// Same shape of report, every key of the full run present, marked as an estimate.
static void check_same_keys(const json& full, const json& est, const std::string& where) {
    for (auto it = full.begin(); it != full.end(); ++it) {
        INFO(where + "." + it.key());
        REQUIRE(est.contains(it.key()));
        if (it.value().is_object()) check_same_keys(it.value(), est[it.key()], where + "." + it.key());
    }
}

TEST_CASE("run CLI: --estimate reports the list scheduler's timeline in the run report's shape, marked as an estimate") {
    for (const char* args : {"", "--set lnc=2"}) {
        INFO(args);
        const json full = run_json(args);
        const json est = run_json(std::string("--estimate ") + args);
        CHECK_FALSE(full.contains("mode"));
        CHECK(est["mode"] == "estimate");
        check_same_keys(full, est, "");
        // the scheduler's idealised core: close to the full simulation, here within 3%
        const double f = full["latency_ns"].get<double>(), e = est["latency_ns"].get<double>();
        CHECK(std::abs(e - f) <= 0.03 * f);
        // what does not depend on timing is the same
        CHECK(est["hbm"]["bytes_read"] == full["hbm"]["bytes_read"]);
        CHECK(est["hbm"]["bytes_written"] == full["hbm"]["bytes_written"]);
        CHECK(est["bounds"]["dma_ns"] == full["bounds"]["dma_ns"]);
        CHECK(est["engines"]["dve"]["busy_ns"] == full["engines"]["dve"]["busy_ns"]);
        CHECK(est["sbuf"] == full["sbuf"]);
        CHECK(est["dma_queues"].size() == full["dma_queues"].size());
    }
    CHECK_THAT(run_cmd("--estimate"), Catch::StartsWith("mode        estimate"));
    int status = 0;
    const std::string po = run_cmd("--estimate --set schedule=program_order", &status);
    CHECK(WEXITSTATUS(status) == 2);
    CHECK_THAT(po, Catch::Contains("--estimate") && Catch::Contains("schedule: list"));
}
