// bnsim sweep and merge: grids expand with the kernel's own choice per context, results stream
// to CSV/JSONL, an interrupted sweep resumes to the same result set, shards merge to an
// unsharded run, failing points are recorded, and the HTML report's SVGs are well-formed XML.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <algorithm>
#include <cstdlib>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "sim/runner/child_process.h"
#include "sim/sweep/results_dir.h"
#include "sim/sweep/sweep_record.h"
#include "sim/sweep/sweep_spec.h"
#include "sim/sweep/sweep_summary.h"
#include "sim/runner/worker_pool.h"
#include "test_util.h"

using namespace bnsim;
using bnsim::test::slurp;
namespace fs = std::filesystem;

namespace {


std::vector<std::string> lines(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream ss(s);
    for (std::string l; std::getline(ss, l);) out.push_back(l);
    return out;
}

std::vector<std::string> split_csv(const std::string& line) {  // rows without quoted commas
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    if (!line.empty() && line.back() == ',') f.push_back("");
    return f;
}

// A fresh folder with a small base config (spatial 1024: fast points) and a sweep file.
struct SweepDir {
    fs::path dir;
    explicit SweepDir(const std::string& grid) {
        dir = fs::temp_directory_path() / ("bnsim_sweep_" + std::to_string(getpid()) + "_" +
                                           std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
        fs::create_directories(dir);
        std::ofstream(dir / "base.yaml") << "hardware: trn2\nkernel: batch_norm_bwd\nshape: {B: 4, C: 64, D: 1, H: 32, W: 32}\n"
                                            "dtype: bfloat16\nmemory: auto\n";
        std::ofstream(dir / "s.yaml") << "base: base.yaml\n" << grid;
    }
    ~SweepDir() {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
    std::string sweep() const { return (dir / "s.yaml").string(); }
    std::string out(const std::string& name) const { return (dir / name).string(); }
};

ChildResult run_sweep_child(const std::vector<std::string>& args) { return run_child(BNSIM_BINARY, args, 300); }

const char* kGrid =
    "grid:\n"
    "  memory.f_tile: [512, 1024, 2048]\n"
    "  memory.interleave: {from: 1, to: 2}\n"
    "  memory.direct_x_residency: [true]\n";

}  // namespace

TEST_CASE("sweep: a small grid's CSV has one row per point plus auto, with the right parameters") {
    SweepDir d(kGrid);
    auto r = run_sweep_child({"sweep", d.sweep(), "-j", "2", "--out", d.out("o")});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    const auto rows = lines(slurp(d.out("o") + "/results.csv"));
    REQUIRE(rows.size() == 1 + 3 * 2 + 1);
    const auto header = split_csv(rows[0]);
    REQUIRE(header.size() >= 8);
    CHECK(header[0] == "id");
    CHECK(header[1] == "memory");
    CHECK(header[2] == "memory.f_tile");
    CHECK(header[3] == "memory.interleave");
    CHECK(header[4] == "memory.direct_x_residency");
    CHECK(header[5] == "status");
    auto col = [&](const std::string& name) {
        return size_t(std::find(header.begin(), header.end(), name) - header.begin());
    };
    for (const char* c : {"latency_ns", "binding", "hbm_bytes_read", "phase_1_ns", "phase_1_bound", "phase_2_bound_ns", "error"})
        CHECK(col(c) < header.size());
    std::set<std::string> grid;
    int autos = 0, infeasible = 0;
    for (size_t i = 1; i < rows.size(); ++i) {
        const auto f = split_csv(rows[i]);
        if (f[1] == "auto") {
            ++autos;
            CHECK(f[col("status")] == "ok");
            CHECK(f[col("f_tile")] == "1024");  // spatial 32*32: the search takes it whole
            CHECK(f[col("interleave")] == "2");  // 4 batches at replication 2: two work units
            continue;
        }
        grid.insert(f[2] + "/" + f[3] + "/" + f[4]);
        if (f[2] == "2048") {
            ++infeasible;
            CHECK(f[col("status")] == "infeasible");
            CHECK(rows[i].find("must be in [1, spatial=1024]") != std::string::npos);
        } else {
            CHECK(f[col("status")] == "ok");
            CHECK(std::stod(f[col("latency_ns")]) > 0);
        }
    }
    CHECK(autos == 1);
    CHECK(infeasible == 2);
    CHECK(grid == std::set<std::string>{"512/1/true", "512/2/true", "1024/1/true", "1024/2/true", "2048/1/true", "2048/2/true"});
    CHECK(lines(slurp(d.out("o") + "/results.jsonl")).size() == 7);
    CHECK(r.out.find("best") != std::string::npos);
    // Provenance: the sweep's build in sweep.json, summary.json and the terminal summary, and each
    // ok point's run carries its own config hash, as `bnsim run --json` does.
    const auto meta = nlohmann::json::parse(slurp(d.out("o") + "/sweep.json"));
    REQUIRE(meta.contains("provenance"));
    const std::string version = meta["provenance"]["bnsim_version"].get<std::string>();
    CHECK(!version.empty());
    CHECK(meta["provenance"]["config_hash"].get<std::string>().rfind("fnv1a64:", 0) == 0);
    CHECK(nlohmann::json::parse(slurp(d.out("o") + "/summary.json"))["provenance"] == meta["provenance"]);
    CHECK(r.out.find("provenance  bnsim " + version) != std::string::npos);
    std::set<std::string> point_hashes;
    for (const auto& l : lines(slurp(d.out("o") + "/results.jsonl"))) {
        const auto rec = nlohmann::json::parse(l);
        if (rec["status"] != "ok") continue;
        CHECK(rec["run"]["provenance"]["bnsim_version"] == version);
        point_hashes.insert(rec["run"]["provenance"]["config_hash"].get<std::string>());
    }
    CHECK(point_hashes.size() == 5);  // 4 ok grid points and auto: each its own resolved config
    // The grid point 1024/2/true is the kernel's own choice made explicit: the same latency, and
    // on that tie the summary names the auto point best.
    const auto summary = nlohmann::json::parse(slurp(d.out("o") + "/summary.json"));
    const auto& ctx = summary["contexts"][0];
    CHECK(ctx["best"]["latency_ns"] == ctx["auto"]["latency_ns"]);
    CHECK(ctx["best"]["id"] == ctx["auto"]["id"]);
    CHECK(r.out.find("(the kernel's own choice)") != std::string::npos);
    // Whichever sorts first: give the tied explicit point an id before auto's and summarize again.
    Records recs = read_records(d.out("o"));
    std::string tied;
    for (const auto& [id, rec] : recs)
        if (!rec.is_auto && rec.ok() && rec.latency_ns() == ctx["auto"]["latency_ns"].get<double>())
            tied = id;
    REQUIRE(!tied.empty());
    auto moved = recs.at(tied);
    moved.id = "0000000000000000";
    recs.erase(tied);
    recs.emplace("0000000000000000", moved);
    const auto again = sweep_summary(read_meta(d.out("o")), recs);
    REQUIRE(again.contexts.at(0).best);
    CHECK(again.contexts[0].best->id == ctx["auto"]["id"].get<std::string>());
    // Twice the same sweep: the same files.
    auto r2 = run_sweep_child({"sweep", d.sweep(), "-j", "1", "--out", d.out("o2")});
    REQUIRE(r2.exit_code == 0);
    for (const char* f : {"results.csv", "results.jsonl", "summary.json", "report.html"})
        CHECK(slurp(d.out("o") + "/" + f) == slurp(d.out("o2") + "/" + f));
}

TEST_CASE("sweep: killing a sweep midway and resuming gives the same results as an uninterrupted run") {
    SweepDir d("grid:\n  memory.f_tile: [128, 256, 512, 1024]\n  memory.interleave: {from: 1, to: 8}\n");
    const std::string out = d.out("killed");
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        freopen("/dev/null", "w", stdout);
        execl(BNSIM_BINARY, BNSIM_BINARY, "sweep", d.sweep().c_str(), "-j", "1", "--out", out.c_str(), (char*)nullptr);
        _exit(127);
    }
    // Wait for some rows, then kill it the hard way.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    size_t rows = 0;
    while (std::chrono::steady_clock::now() < deadline) {
        rows = lines(slurp(out + "/results.jsonl")).size();
        if (rows >= 3) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    const size_t saved = lines(slurp(out + "/results.jsonl")).size();
    INFO("rows saved before the kill: " << saved);
    REQUIRE(saved >= 3);
    REQUIRE(saved < 33);  // killed midway (4 x 8 grid + auto)
    // Without --resume the folder is refused; with it, the rest runs.
    CHECK(run_sweep_child({"sweep", d.sweep(), "--out", out}).exit_code == 2);
    auto r = run_sweep_child({"sweep", d.sweep(), "-j", "2", "--out", out, "--resume"});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find(std::to_string(saved) + " already done") != std::string::npos);
    REQUIRE(run_sweep_child({"sweep", d.sweep(), "-j", "2", "--out", d.out("whole")}).exit_code == 0);
    for (const char* f : {"results.csv", "results.jsonl", "summary.json"})
        CHECK(slurp(out + "/" + f) == slurp(d.out("whole") + "/" + f));
    CHECK(lines(slurp(out + "/results.jsonl")).size() == 33);
}

TEST_CASE("sweep: two shards merged equal one unsharded run") {
    SweepDir d(std::string(kGrid) + "points:\n  - {shape.C: 128}\n");
    REQUIRE(run_sweep_child({"sweep", d.sweep(), "-j", "2", "--out", d.out("all")}).exit_code == 0);
    REQUIRE(run_sweep_child({"sweep", d.sweep(), "--shard", "0/2", "--out", d.out("s0")}).exit_code == 0);
    REQUIRE(run_sweep_child({"sweep", d.sweep(), "--shard", "1/2", "--out", d.out("s1")}).exit_code == 0);
    const size_t n0 = lines(slurp(d.out("s0") + "/results.jsonl")).size();
    const size_t n1 = lines(slurp(d.out("s1") + "/results.jsonl")).size();
    CHECK(n0 + n1 == 14);  // two contexts, each 6 grid points + auto
    CHECK(n0 == 7);
    auto m = run_sweep_child({"merge", d.out("s0"), d.out("s1"), "--out", d.out("merged")});
    INFO(m.out << m.err);
    REQUIRE(m.exit_code == 0);
    for (const char* f : {"results.csv", "results.jsonl", "summary.json", "report.html", "sweep.json"})
        CHECK(slurp(d.out("all") + "/" + f) == slurp(d.out("merged") + "/" + f));
    // Shards of two builds do not merge (nor resume): sweep.json names the build.
    auto meta = nlohmann::ordered_json::parse(slurp(d.out("s1") + "/sweep.json"));
    meta["provenance"]["bnsim_version"] = "v0-other-build";
    std::ofstream(d.out("s1") + "/sweep.json") << meta.dump(2) << "\n";
    auto mixed = run_sweep_child({"merge", d.out("s0"), d.out("s1"), "--out", d.out("mixed")});
    CHECK(mixed.exit_code == 2);
    CHECK(mixed.err.find("was run by bnsim v0-other-build") != std::string::npos);
    CHECK(run_sweep_child({"sweep", d.sweep(), "--shard", "1/2", "--out", d.out("s1"), "--resume"}).exit_code == 2);
    // A folder of another sweep does not merge.
    SweepDir other("grid:\n  memory.interleave: [1]\n");
    REQUIRE(run_sweep_child({"sweep", other.sweep(), "--out", other.out("o")}).exit_code == 0);
    CHECK(run_sweep_child({"merge", d.out("s0"), other.out("o"), "--out", d.out("bad")}).exit_code == 2);
}

TEST_CASE("sweep: an infeasible point is recorded and does not stop the sweep") {
    // usable SBUF 20000 leaves 18976 bytes: f_tile 1024 with 8 slots needs far more, f_tile 64 fits.
    SweepDir small("grid:\n  memory.f_tile: [1024, 64]\n  memory.interleave: [8]\n  hardware.sbuf.usable_bytes_per_partition: [20000]\n");
    auto r = run_sweep_child({"sweep", small.sweep(), "--out", small.out("o"), "-j", "1"});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    const std::string jl = slurp(small.out("o") + "/results.jsonl");
    CHECK(lines(jl).size() == 3);
    CHECK(jl.find("\"status\":\"infeasible\"") != std::string::npos);
    CHECK(jl.find("only 18976 are available") != std::string::npos);
    CHECK(jl.find("\"status\":\"ok\"") != std::string::npos);
}

TEST_CASE("sweep workers: a crash, a timeout and a success are each reported and the pool goes on") {
    std::vector<JobResult> got(3);
    PoolOptions po;
    po.jobs = 2;
    po.timeout_s = 0.5;
    run_pool(
        3, po,
        [](size_t i) -> std::string {
            if (i == 0) abort();
            if (i == 1) std::this_thread::sleep_for(std::chrono::seconds(30));
            return "payload " + std::to_string(i);
        },
        [&](size_t i, const JobResult& r) { got[i] = r; });
    CHECK(got[0].kind == JobResult::Kind::crashed);
    CHECK(got[0].signal == SIGABRT);
    CHECK(describe_crash(got[0]).find("signal 6") != std::string::npos);
    CHECK(got[1].kind == JobResult::Kind::timed_out);
    CHECK(got[2].kind == JobResult::Kind::done);
    CHECK(got[2].payload == "payload 2");
}

TEST_CASE("pool workers: each runs many jobs, and a throwing job ends its worker and only itself") {
    // 40 jobs on 2 workers: every job reports the process it ran in. Job 7 throws: its worker
    // exits (status 4, the exception's text in its output) and the jobs after it go on in a new
    // worker, so 3 processes ran them all.
    std::vector<JobResult> got(40);
    PoolOptions po;
    po.jobs = 2;
    run_pool(
        got.size(), po,
        [](size_t i) -> std::string {
            if (i == 7) throw std::runtime_error("job seven refuses");
            return std::to_string(getpid());
        },
        [&](size_t i, const JobResult& r) { got[i] = r; });
    std::set<std::string> pids;
    for (size_t i = 0; i < got.size(); ++i) {
        INFO(i);
        if (i == 7) continue;
        REQUIRE(got[i].kind == JobResult::Kind::done);
        CHECK(got[i].payload != std::to_string(getpid()));  // never in the parent
        pids.insert(got[i].payload);
    }
    CHECK(got[7].kind == JobResult::Kind::crashed);
    CHECK(got[7].exit_code == 4);
    CHECK(describe_crash(got[7]).find("job seven refuses") != std::string::npos);
    CHECK(pids.size() <= 3);
    CHECK(pids.size() >= 2);
}

TEST_CASE("pool workers live across batches: a second batch runs in the first batch's processes, a crash is replaced") {
    // A job is its own text; it answers with the process it ran in and what that process saw
    // before (a worker's memory lives on from batch to batch), or crashes when asked to.
    WorkerPool pool(2, [](const std::string& job) -> std::string {
        static int seen = 0;
        if (job == "crash") abort();
        return std::to_string(getpid()) + " " + std::to_string(seen++);
    });
    auto batch = [&](const std::vector<std::string>& jobs) {
        std::vector<JobResult> got(jobs.size());
        pool.run(jobs, 30, [&](size_t i, const JobResult& r) { got[i] = r; });
        return got;
    };
    std::set<std::string> first_pids;
    for (const auto& r : batch(std::vector<std::string>(10, "job"))) {
        REQUIRE(r.kind == JobResult::Kind::done);
        first_pids.insert(r.payload.substr(0, r.payload.find(' ')));
    }
    CHECK(first_pids.size() <= 2);
    CHECK(pool.workers() == first_pids.size());
    // The second batch: the same processes, each counting on from where it stopped.
    int carried_on = 0;
    for (const auto& r : batch(std::vector<std::string>(6, "job"))) {
        REQUIRE(r.kind == JobResult::Kind::done);
        CHECK(first_pids.count(r.payload.substr(0, r.payload.find(' '))) == 1);
        carried_on += std::stoi(r.payload.substr(r.payload.find(' ') + 1)) > 0;
    }
    CHECK(carried_on == 6);
    // A crash ends one worker; the batch after it runs on a new one beside the survivor.
    const auto crashed = batch({"crash", "job", "job"});
    CHECK(crashed[0].kind == JobResult::Kind::crashed);
    CHECK(crashed[0].signal == SIGABRT);
    CHECK(crashed[1].kind == JobResult::Kind::done);
    CHECK(crashed[2].kind == JobResult::Kind::done);
    CHECK(pool.workers() <= 2);
}

TEST_CASE("pool workers take the jobs in the order asked for, and say how long each took") {
    // One worker: jobs end in the order they are handed out. Outcomes keep their own indices.
    WorkerPool pool(1, [](const std::string& job) -> std::string {
        if (job == "slow") std::this_thread::sleep_for(std::chrono::milliseconds(50));
        return job;
    });
    const std::vector<std::string> jobs = {"a", "b", "slow", "c"};
    std::vector<size_t> ended;
    std::vector<JobResult> got(jobs.size());
    pool.run(jobs, 30, [&](size_t i, const JobResult& r) { ended.push_back(i), got[i] = r; }, nullptr, {2, 0, 3, 1});
    CHECK(ended == std::vector<size_t>{2, 0, 3, 1});
    for (size_t i = 0; i < jobs.size(); ++i) CHECK(got[i].payload == jobs[i]);
    CHECK(got[2].seconds >= 0.05);
    CHECK(got[0].seconds < got[2].seconds);
    // An order that is not one job per index is a programming error, refused before anything runs.
    CHECK_THROWS_AS(pool.run(jobs, 30, [](size_t, const JobResult&) {}, nullptr, {0, 1}), std::logic_error);
    CHECK_THROWS_AS(pool.run(jobs, 30, [](size_t, const JobResult&) {}, nullptr, {0, 1, 1, 2}), std::logic_error);
    CHECK_THROWS_AS(pool.run(jobs, 30, [](size_t, const JobResult&) {}, nullptr, {0, 1, 2, 4}), std::logic_error);
}

TEST_CASE("sweep files: ranges, lists, explicit points and an auto point per context") {
    SweepDir d(
        "grid:\n"
        "  shape.C: [64, 128]\n"
        "  memory.f_tile: {from: 256, to: 1024, times: 2}\n"
        "  memory.interleave: {from: 1, to: 3}\n"
        "points:\n"
        "  - {dtype: float32}\n"
        "  - {shape.C: 64, memory.interleave: 2}\n");
    const SweepSpec spec = load_sweep_spec(d.sweep());
    REQUIRE(spec.grid.size() == 3);
    CHECK(spec.grid[1].second == std::vector<std::string>{"256", "512", "1024"});
    CHECK(spec.grid[2].second == std::vector<std::string>{"1", "2", "3"});
    const SweepPlan plan = expand_sweep(spec, sweep_kernel("batch_norm_bwd"));
    CHECK(plan.columns == std::vector<std::string>{"shape.C", "dtype", "memory", "memory.f_tile", "memory.interleave"});
    // Contexts C=64 and C=128: auto + 9 each; dtype float32: auto + 9; {C 64, interleave 2}: its
    // context (C=64) already has an auto point, plus the point itself.
    CHECK(plan.points.size() == 10 + 10 + 10 + 1);
    int autos = 0;
    for (const auto& p : plan.points) autos += p.is_auto;
    CHECK(autos == 3);
    CHECK(plan.points[0].params == PointParams{{"shape.C", "64"}, {"memory", "auto"}});
    CHECK(plan.points.back().params == PointParams{{"shape.C", "64"}, {"memory.interleave", "2"}});
    // Ids come from the parameters, not their order.
    CHECK(point_id({{"a", "1"}, {"b", "2"}}) == point_id({{"b", "2"}, {"a", "1"}}));
    CHECK(point_id({{"a", "1"}}) != point_id({{"a", "2"}}));
}

TEST_CASE("sweep: bad sweep files and usage are errors with exit status 2") {
    SweepDir typo("grid:\n  memory.interleav: [1, 2]\n");
    auto r = run_sweep_child({"sweep", typo.sweep(), "--out", typo.out("o")});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("memory.interleav") != std::string::npos);
    SweepDir range("grid:\n  memory.interleave: {from: 1, to: 9}\n");
    r = run_sweep_child({"sweep", range.sweep(), "--out", range.out("o")});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("interleave") != std::string::npos);
    SweepDir bad_range("grid:\n  memory.f_tile: {from: 8, to: 1, step: 1}\n");
    r = run_sweep_child({"sweep", bad_range.sweep()});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("s.yaml:3:") != std::string::npos);
    SweepDir ok("grid:\n  memory.interleave: [1]\n");
    CHECK(run_sweep_child({"sweep", ok.sweep(), "--shard", "2/2", "--out", ok.out("o")}).exit_code == 2);
    CHECK(run_sweep_child({"sweep", ok.sweep(), "--shard", "x", "--out", ok.out("o")}).exit_code == 2);
    CHECK(run_sweep_child({"sweep", ok.out("missing.yaml")}).exit_code == 2);
    CHECK(run_sweep_child({"merge", ok.out("nothing"), "--out", ok.out("m")}).exit_code == 2);
}

namespace {

// A small grid sweep's report page.
std::string grid_report(SweepDir& d) {
    REQUIRE(run_sweep_child({"sweep", d.sweep(), "-j", "2", "--out", d.out("o")}).exit_code == 0);
    return slurp(d.out("o") + "/report.html");
}

const char* kReportGrid =
    "grid:\n"
    "  memory.f_tile: [256, 512, 1024, 2048]\n"
    "  memory.interleave: [1, 4]\n"
    "  memory.direct_x_residency: [true, false]\n";

}  // namespace

TEST_CASE("sweep: the HTML report's charts are Chart.js specs with units, a colour scale and ties marked") {
    SweepDir d(kReportGrid);
    const std::string html = grid_report(d);
    // Self-contained: Chart.js and the drawing code inline, nothing loaded from elsewhere.
    CHECK(html.find("Chart.js v3") != std::string::npos);
    CHECK(html.find("<script src") == std::string::npos);
    CHECK(html.find("<link") == std::string::npos);
    const auto specs = test::chart_specs(html);
    REQUIRE(specs.size() == 5);  // heatmap and line chart for residency on and off, and the phase breakdown
    // Latencies of the ok points, from the results (us).
    std::vector<double> lat;
    for (const std::string& line : lines(slurp(d.out("o") + "/results.jsonl"))) {
        const auto j = nlohmann::json::parse(line);
        if (j["status"] == "ok") lat.push_back(j["run"]["latency_ns"].get<double>() / 1000);
    }
    REQUIRE(!lat.empty());
    const double lo = *std::min_element(lat.begin(), lat.end()), hi = *std::max_element(lat.begin(), lat.end());
    int best = 0;
    for (int h : {0, 1}) {
        const auto& s = specs[h];
        CHECK(s["kind"] == "heatmap");
        CHECK(s["scale"]["title"] == "latency (us)");
        CHECK(s["scale"]["min"].get<double>() == Approx(lo));
        CHECK(s["scale"]["max"].get<double>() == Approx(hi));
        CHECK(s["x"]["title"] == "f_tile");
        CHECK(s["y"]["title"] == "interleave");
        CHECK(s["x"]["labels"] == nlohmann::json({"256", "512", "1024", "2048"}));
        for (const auto& row : s["cells"])
            for (const auto& c : row) {
                if (c["value"].is_null()) continue;
                const double v = c["value"].get<double>();
                // Every point within the tie rule (0.5%) of the fastest is the best or marked tied.
                INFO(c["tip"].get<std::string>());
                CHECK((c["mark"] != "") == ((v - lo) * 100 <= lo * 0.5));
                best += c["mark"] == "best";
            }
    }
    // The one the summary names is starred when it is a grid point; here the kernel's own choice
    // (interleave 2, outside the grid) is the best, so grid points can only tie with it.
    const auto summary = nlohmann::json::parse(slurp(d.out("o") + "/summary.json"));
    const auto& choice = summary["contexts"][0]["best"]["choice"];
    const bool in_grid = choice["memory.interleave"] == "1" || choice["memory.interleave"] == "4";
    CHECK(best == (in_grid ? 1 : 0));

    for (int l : {2, 3}) {
        CHECK(specs[l]["kind"] == "lines");
        CHECK(specs[l]["y"]["title"].get<std::string>().rfind("latency (us", 0) == 0);
        CHECK(specs[l]["series"].size() == 2);  // interleave 1 and 4
    }
    CHECK(specs[4]["kind"] == "spans");
    CHECK(specs[4]["x"]["title"] == "time (us, launch included)");
    CHECK(specs[4]["rows"].size() == lat.size());
    CHECK(html.find("the kernel's own choice (auto)") != std::string::npos);
}

TEST_CASE("sweep: the HTML report's charts draw in a browser (headless Chromium)") {
    if (!test::has_chromium()) bnsim::test::skip_test("chromium is not installed");
    SweepDir d(kReportGrid);
    grid_report(d);
    CHECK(test::charts_drawn_in_chromium(d.out("o") + "/report.html", d.out("profile")) ==
          "data-charts=\"5\" data-chart-errors=\"\"");
}

TEST_CASE("sweep records: a results.jsonl line reads back to the same record, and a bad run report is named") {
    SweepDir d("grid:\n  memory.f_tile: [512]\n  memory.interleave: [2]\n  memory.direct_x_residency: [true]\n");
    const auto r = run_sweep_child({"sweep", d.sweep(), "--out", d.out("o")});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    const std::vector<std::string> rows = lines(slurp(d.out("o") + "/results.jsonl"));
    REQUIRE(rows.size() == 2);  // the grid point and the kernel's own choice
    for (const auto& row : rows) {
        const auto j = nlohmann::ordered_json::parse(row);
        const SweepRecord rec = sweep_record_from_json(j, "r:1");
        CHECK(rec.ok());
        CHECK(rec.run->phases.size() == 2);
        CHECK(to_json(rec).dump() == row);  // byte for byte
    }
    auto j = nlohmann::ordered_json::parse(rows[0]);
    j["run"]["phases"][1]["binding"]["unit"] = 3;
    CHECK_THROWS_WITH(sweep_record_from_json(j, "r:1"),
                      Catch::Contains("r:1: run report: run.phases[].binding.unit: expected a string") &&
                          Catch::Contains("not a bnsim sweep record"));
    j = nlohmann::ordered_json::parse(rows[0]);
    j["status"] = "infeasible";  // a point that did not run has no report
    CHECK_THROWS_WITH(sweep_record_from_json(j, "r:1"), Catch::Contains("run: expected null"));
}
