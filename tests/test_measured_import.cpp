// Importers of measured trn2 data: the documented sample of every accepted form reads as
// documented, and malformed files are one-line errors naming file, line (or record) and field.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "sim/measured/csv_table.h"
#include "sim/measured/import_error.h"
#include "sim/measured/measured_runs.h"
#include "sim/measured/profile.h"
#include "tests/source_paths.h"
#include "tests/test_util.h"

using namespace bnsim;

namespace {

const std::string kData = kSrc + "/tests/data/";

// The ImportError's message (test fails if none is thrown).
template <class F>
std::string import_error(F f) {
    try {
        f();
    } catch (const ImportError& e) {
        return e.what();
    }
    FAIL("no ImportError");
    return "";
}

}  // namespace

TEST_CASE("measured-runs CSV: the M4 sample reads as two points with keys, config and p50") {
    const MeasuredSet s = read_measured(kSrc + "/configs/measured/m4_vector_add.csv");
    CHECK(s.format == "runs_csv");
    REQUIRE(s.points.size() == 2);
    const auto& a = s.points[0];
    CHECK(a.id == "M4.free2");
    CHECK(a.line == 2);
    CHECK(a.metric == "latency_ns");
    CHECK(a.measured == Approx(186000));
    CHECK(a.percentiles_us.at("p50") == Approx(186));
    REQUIRE(a.sets.size() == 1);
    CHECK(a.sets[0] == std::make_pair(std::string("vector_add.free"), std::string("2")));
    CHECK(std::filesystem::path(a.config).filename() == "m4_vector_add_free2.yaml");
    CHECK(s.points[1].measured == Approx(15000));
}

TEST_CASE("measured-runs CSV: quoted fields, CRLF, empty cells and any dotted key") {
    const auto f = test::write_temp_file("bnsim_test_measured", "quoted.csv",
                              "shape.C,memory.interleave,latency_us,p99_us,source\r\n"
                              "128,,580.5,,\"a, b \"\"quoted\"\"\"\r\n"
                              "\r\n"
                              "256,4,1200,1250,x\r\n");
    const MeasuredSet s = read_runs_csv(f);
    REQUIRE(s.points.size() == 2);
    CHECK(s.points[0].sets.size() == 1);  // the empty interleave cell leaves the key unset
    CHECK(s.points[0].source == "a, b \"quoted\"");
    CHECK(s.points[0].id == "line 2");
    CHECK(s.points[1].line == 4);
    CHECK(s.points[1].sets.size() == 2);
    CHECK(s.points[1].percentiles_us.at("p99") == Approx(1250));
}

TEST_CASE("measured-runs CSV: malformed files name file, line and field") {
    auto err = [](const std::string& name, const std::string& body) {
        const auto f = test::write_temp_file("bnsim_test_measured", name, body);
        return std::make_pair(f, import_error([&] { read_runs_csv(f); }));
    };
    {
        auto [f, e] = err("nolat.csv", "shape.C,p50_us\n64,500\n");
        CHECK(e == f + ":1: field 'latency_us': missing column (a measured-runs CSV needs latency_us)");
    }
    {
        auto [f, e] = err("badnum.csv", "shape.C,latency_us\n64,500\n128,fast\n");
        CHECK(e == f + ":3: field 'latency_us': expected a number, got 'fast'");
    }
    {
        auto [f, e] = err("negative.csv", "shape.C,latency_us\n64,-5\n");
        CHECK(e == f + ":2: field 'latency_us': expected a latency in (0, 1e9] us, got '-5'");
    }
    {
        auto [f, e] = err("short.csv", "shape.C,latency_us\n64\n");
        CHECK(e == f + ":2: expected 2 fields as in the header, got 1");
    }
    {
        auto [f, e] = err("quote.csv", "shape.C,latency_us\n\"64,500\n");
        CHECK(e == f + ":2: unterminated quoted field");
    }
    {
        auto [f, e] = err("key.csv", "shape..C,latency_us\n64,500\n");
        CHECK(e.rfind(f + ":1: field 'shape..C': expected a run-config dotted key", 0) == 0);
    }
    {
        auto [f, e] = err("dup.csv", "latency_us,latency_us\n1,2\n");
        CHECK(e == f + ":1: field 'latency_us': duplicate column");
    }
    {
        auto [f, e] = err("empty.csv", "");
        CHECK(e == f + ": empty file, expected a CSV header line");
    }
    {
        auto [f, e] = err("header_only.csv", "shape.C,latency_us\n");
        CHECK(e == f + ": no measured rows after the header");
    }
    CHECK(import_error([] { read_measured("/nonexistent/runs.csv"); }) == "/nonexistent/runs.csv: cannot open (No such file or directory); expected a measured-runs file");
}

TEST_CASE("latency table: the M4 sample and a multi-percentile table with units") {
    const MeasuredSet m4 = read_measured(kSrc + "/configs/measured/m4_vector_add_latency.txt");
    CHECK(m4.format == "latency_table");
    REQUIRE(m4.points.size() == 2);
    CHECK(m4.points[0].id == "M4.free2");
    CHECK(m4.points[0].measured == Approx(186000));
    CHECK(m4.points[1].sets[0].second == "200");

    const MeasuredSet t = read_measured(kData + "measured/latency_table.txt");
    REQUIRE(t.points.size() == 2);
    const auto& a = t.points[0];
    CHECK(a.line == 2);
    CHECK(a.sets.size() == 2);
    CHECK(a.percentiles_us.at("p0") == Approx(571.2));
    CHECK(a.percentiles_us.at("p50") == Approx(586.2));  // 0.5862 ms
    CHECK(a.percentiles_us.at("p99") == Approx(590.1));  // 590100 ns
    CHECK(a.measured == Approx(586200));                 // latency = p50, in ns
    CHECK(t.points[1].sets.empty());
    CHECK(t.points[1].id == "base");
}

TEST_CASE("latency table: malformed tables name file, line and field") {
    auto err = [](const std::string& body) {
        const auto f = test::write_temp_file("bnsim_test_measured", "table.txt", body);
        return import_error([&] { read_latency_table(f); }).substr(f.size());
    };
    CHECK(err("run: shape.C=64\np50: 500\n") == ":2: field 'p50': expected 'VALUE UNIT' (e.g. 186.0 us), got '500'");
    CHECK(err("run: shape.C=64\np50: 500 parsecs\n") ==
          ":2: field 'p50': expected a unit of ns, us, ms or s after the value, got 'parsecs'");
    CHECK(err("run: shape.C=64\np99: 500 us\n") == ":1: field 'p50': missing: every run: block needs a p50 line");
    CHECK(err("p50: 500 us\n") == ":1: field 'p50': appears before the first 'run:' line");
    CHECK(err("run: shape.C\np50: 1 us\n") == ":1: field 'shape.C': expected dotted.key=value after 'run:', got 'shape.C'");
    CHECK(err("run:\np50: 1 us\nmean 3\n") ==
          ":3: expected 'run: ...', 'config: ...', 'id: ...' or 'pNN: VALUE UNIT', got 'mean 3'");
    CHECK(err("run:\np50: 1 us\np50: 2 us\n") == ":3: field 'p50': given twice in one run");
    CHECK(err("run:\np50: x us\n") == ":2: field 'p50': expected a number, got 'x'");
    CHECK(err("# nothing\n") == ": no 'run:' block");
}

TEST_CASE("neuron-profile summary-text: the synthetic sample reads field by field") {
    const Profile p = read_profile(kData + "profiles/synthetic-summary-text.txt");
    CHECK(p.format == "summary_text");
    CHECK(p.metadata.at("profile_name") == "n_0000000000000000000000000000000000000000");
    CHECK(p.summary.at("instance_type") == "trn2.3xlarge");
    CHECK(*p.number("total_time") == Approx(1.52e-5));
    CHECK(*p.number("dma_transfer_total_bytes") == Approx(307200));
    CHECK(p.summary.at("profiler_version") == "0.0.0 (synthetic)");
    CHECK(p.instructions.empty());
    CHECK_FALSE(p.is_simulation());
}

TEST_CASE("neuron-profile summary-text: malformed captures name line and field") {
    auto err = [](const std::string& body) {
        const auto f = test::write_temp_file("bnsim_test_measured", "summary.txt", body);
        return import_error([&] { read_profile(f); }).substr(f.size());
    };
    CHECK(err("n_1\n  total_time 1e-5\n  dma_active_time fast\n") == ":3: field 'dma_active_time': expected a number, got 'fast'");
    CHECK(err("n_1\n  total_time 1e-5\n  hbm_read_bytes\n") == ":3: field 'hbm_read_bytes': expected 'name value', got a name without a value");
    CHECK(err("n_1\n  total_time 1e-5\n  total_time 2e-5\n") == ":3: field 'total_time': given twice");
    CHECK(err("n_1\n  dma_active_time 1e-5\n") == ": field 'total_time': missing: a profile summary needs total_time (seconds)");
}

TEST_CASE("neuron-profile legacy JSON: summary and per-instruction records") {
    const Profile p = read_profile(kData + "profiles/synthetic-profile.json");
    CHECK(*p.number("total_time") == Approx(1.52e-5));
    REQUIRE(p.instructions.size() == 3);
    CHECK(p.instructions[2].engine == "Vector");
    CHECK(engine_key(p.instructions[2].engine) == "vector");
    CHECK(p.instructions[2].opcode == "TENSOR_TENSOR");
    CHECK(p.instructions[2].start_ns == 9000);
    CHECK(p.instructions[2].end_ns == 10200);
    CHECK(p.instructions[2].duration_ns == 1200);
}

TEST_CASE("Neuron Explorer tables: the CSV directory and the JSON export read the same") {
    const Profile c = read_profile(kData + "profiles/explorer");
    const Profile j = read_profile(kData + "profiles/explorer.json");
    REQUIRE(c.instructions.size() == 3);
    REQUIRE(c.dma_packets.size() == 3);
    CHECK(c.instructions == j.instructions);
    CHECK(c.dma_packets == j.dma_packets);
    CHECK(c.instructions[0].nki_source_location == "kernels.py:21");
    CHECK(c.instructions[2].duration_ns == 1200);
    CHECK(c.dma_packets[2].engine_idx == 0);
    CHECK(c.dma_packets[2].queue_name == "qSyncIO1");
    CHECK(c.dma_packets[2].transfer_bytes == 6400);
    CHECK(*c.number("dma_active_time") == Approx(1.18e-5));
    CHECK(*j.number("hbm_write_bytes") == Approx(102400));
    CHECK(engine_key("Sync") == "sync");
    CHECK(engine_key("act") == "scalar");
    CHECK(engine_key("pe") == "tensor");
    CHECK(engine_key("pool") == "gpsimd");
}

TEST_CASE("Neuron Explorer tables: malformed CSV and JSON name line or record and field") {
    {
        const auto f = test::write_temp_file("bnsim_test_measured", "instruction.csv", "start_ts,end_ts,duration_ns,engine,opcode\n1,2,1,Sync,X\n5,3,2,Sync,X\n");
        CHECK(import_error([&] { read_profile(f); }) == f + ":3: field 'end_ts': ends before it starts");
    }
    {
        const auto f = test::write_temp_file("bnsim_test_measured", "instruction2.csv", "start_ts,end_ts,duration_ns,engine,opcode\n1,2,abc,Sync,X\n");
        CHECK(import_error([&] { read_profile(f); }) == f + ":2: field 'duration_ns': expected a number, got 'abc'");
    }
    {
        const auto f = test::write_temp_file("bnsim_test_measured", "instruction3.csv", "start_ts,duration_ns,opcode\n1,2,X\n");
        CHECK(import_error([&] { read_profile(f); }) == f + ":2: field 'engine': missing");
    }
    {
        const auto f = test::write_temp_file("bnsim_test_measured", "packets.csv", "start_ts,end_ts,engine_idx,queue_name,transfer_bytes\n1,2,-1,q,64\n");
        CHECK(import_error([&] { read_profile(f); }) == f + ":2: field 'engine_idx': expected an engine index (0, 1, ...)");
    }
    {
        const auto f = test::write_temp_file("bnsim_test_measured", "other.csv", "a,b\n1,2\n");
        CHECK(import_error([&] { read_profile(f); }).rfind(f + ":1: not a profiler table", 0) == 0);
    }
    {
        const auto f = test::write_temp_file("bnsim_test_measured", "bad.json", "{\"instruction\": [\n {\"start_ts\": 1, \"end_ts\": 2, \"engine\": \"Sync\", \"opcode\": \"X\"},\n"
                                              " {\"start_ts\": \"x\", \"end_ts\": 2, \"engine\": \"Sync\", \"opcode\": \"X\"}]}\n");
        CHECK(import_error([&] { read_profile(f); }) == f + ": instruction[1]: field 'start_ts': expected a number, got 'x'");
    }
    {
        const auto f = test::write_temp_file("bnsim_test_measured", "syntax.json", "{\"summary\": [\n{\"total_time\": 1e-5,,}\n]}\n");
        CHECK(import_error([&] { read_profile(f); }) == f + ":2: JSON syntax error; expected a profile JSON");
    }
    {
        const auto f = test::write_temp_file("bnsim_test_measured", "summary.json", "{\"summary\": [{\"total_time\": \"soon\"}]}");
        CHECK(import_error([&] { read_profile(f); }) == f + ": summary[0]: field 'total_time': expected a number, got 'soon'");
    }
}

TEST_CASE("measured-runs CSV: a UTF-8 byte-order mark (as spreadsheets write) and CRLF lines read as without them") {
    const std::string dir = kSrc + "/build/.test_measured_bom";
    std::filesystem::create_directories(dir);
    bnsim::test::put(dir + "/plain.csv", "id,vector_add.free,latency_us,p99_us\na,2,186,190.5\n");
    bnsim::test::put(dir + "/bom.csv", "\xEF\xBB\xBFid,vector_add.free,latency_us,p99_us\r\na,2,186,190.5\r\n");
    const MeasuredSet a = read_measured(dir + "/plain.csv"), b = read_measured(dir + "/bom.csv");
    REQUIRE(b.points.size() == 1);
    CHECK(b.points[0].id == "a");  // the first column is `id`, not "\xEF\xBB\xBFid"
    CHECK(b.points[0].sets == a.points[0].sets);
    CHECK(b.points[0].measured == a.points[0].measured);
    CHECK(b.points[0].percentiles_us == a.points[0].percentiles_us);
}

TEST_CASE("measured-runs CSV: keys and percentile columns are matched without std::regex, as before") {
    const std::string dir = kSrc + "/build/.test_measured_keys";
    std::filesystem::create_directories(dir);
    // A 50,000-character column name overflowed std::regex's recursion (SIGSEGV): now it is an
    // ordinary dotted key that the run config then rejects.
    bnsim::test::put(dir + "/long.csv", "latency_us," + std::string(50000, 'a') + "\n1,2\n");
    const MeasuredSet l = read_runs_csv(dir + "/long.csv");
    REQUIRE(l.points.size() == 1);
    CHECK(l.points[0].sets[0].first.size() == 50000);
    bnsim::test::put(dir + "/p.csv", "latency_us,p50_us,p99.9_us,shape.C,_x.y_1\n10,9,12.5,128,3\n");
    const MeasuredSet p = read_runs_csv(dir + "/p.csv");
    CHECK(p.points[0].percentiles_us.at("p50") == 9);
    CHECK(p.points[0].percentiles_us.at("p99.9") == 12.5);
    REQUIRE(p.points[0].sets.size() == 2);
    CHECK(p.points[0].sets[1].first == "_x.y_1");
    for (const char* bad : {"p.9_us", "9.shape", "shape..C", "shape.", "shape-C", ".x"}) {
        bnsim::test::put(dir + "/bad.csv", std::string("latency_us,") + bad + "\n10,1\n");
        INFO(bad);
        CHECK(import_error([&] { read_runs_csv(dir + "/bad.csv"); }).find("expected a run-config dotted key") !=
              std::string::npos);
    }
}
