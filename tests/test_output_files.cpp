// Every output path bnsim writes (--dump, --timeline, validate --outputs / --save-inputs) goes
// through one writer: - is standard output, special files are written in place and never
// replaced, symlinks keep pointing where they did, regular files are replaced atomically through
// a unique temporary that a signal cleans up, and an unusable path is refused before the run.
// Special files are made in a temp dir (FIFOs, symlinks, a null device when mknod is allowed),
// never the real /dev entries.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "cli_run.h"
#include "test_util.h"
#include "tests/source_paths.h"

using namespace bnsim::test;
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {


bool is_symlink(const std::string& p) {
    struct stat st;
    return lstat(p.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

mode_t file_type(const std::string& p) {
    struct stat st;
    return lstat(p.c_str(), &st) == 0 ? (st.st_mode & S_IFMT) : 0;
}

std::vector<std::string> names_in(const std::string& dir) {
    std::vector<std::string> n;
    for (const auto& e : fs::directory_iterator(dir)) n.push_back(e.path().filename().string());
    return n;
}

bool has_temporary(const std::string& dir) {
    for (const auto& n : names_in(dir))
        if (n.size() > 4 && n.compare(n.size() - 4, 4, ".tmp") == 0) return true;
    return false;
}

// The first line of a trace dump is its header: a JSON object with the HBM tensors.
bool looks_like_dump(const std::string& text) {
    const auto nl = text.find('\n');
    if (nl == std::string::npos) return false;
    try {
        return json::parse(text.substr(0, nl)).is_object() && text.back() == '\n';
    } catch (...) {
        return false;
    }
}

// The child has ended (left for finish_bnsim to reap).
bool exited(pid_t pid) {
    siginfo_t info{};
    return waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid;
}

// Reads a FIFO in a thread from before the writer opens it until the writer is done.
class FifoReader {
public:
    explicit FifoReader(const std::string& path) {
        fd_ = open(path.c_str(), O_RDONLY | O_NONBLOCK);
        REQUIRE(fd_ >= 0);
        thread_ = std::thread([this] {
            char buf[65536];
            while (true) {
                const ssize_t n = read(fd_, buf, sizeof buf);
                if (n > 0) {
                    data_.append(buf, size_t(n));
                    continue;
                }
                if (writer_done_) {
                    if (n == 0) break;
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(2));
            }
        });
    }
    std::string finish() {
        writer_done_ = true;
        thread_.join();
        close(fd_);
        return data_;
    }

private:
    int fd_ = -1;
    std::atomic<bool> writer_done_{false};
    std::string data_;
    std::thread thread_;
};

}  // namespace

TEST_CASE("output files: - writes the dump to standard output, not to a file named -, and the report to standard error") {
    const std::string dir = make_temp_dir("bnsim_out_dash");
    CliOptions o;
    o.cwd = dir;
    CliResult r = run_bnsim({"trace", kDefault, "--dump", "-"}, o);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(!fs::exists(dir + "/-"));
    CHECK(looks_like_dump(r.out));
    CHECK(r.err.find("instructions") != std::string::npos);  // the text report
    r = run_bnsim({"run", kDefault, "--timeline", "-"}, o);
    REQUIRE(r.exit_code == 0);
    CHECK(json::parse(r.out).contains("traceEvents"));
    CHECK(r.err.find("latency") != std::string::npos);
    CHECK(names_in(dir).empty());
}

TEST_CASE("output files: - together with --json is a usage error, exit 2 before anything runs") {
    for (const auto& args : std::vector<std::vector<std::string>>{{"trace", kDefault, "--json", "--dump", "-"},
                                                                  {"run", kDefault, "--json", "--timeline", "-"}}) {
        CliResult r = run_bnsim(args);
        INFO(args[0] << ": " << r.err);
        CHECK(r.exit_code == 2);
        CHECK(r.out.empty());
        CHECK(r.err.find("--json") != std::string::npos);
    }
}

TEST_CASE("output files: a symlink to the standard output it runs with (as /dev/stdout is) is written in place and kept") {
    const std::string dir = make_temp_dir("bnsim_out_stdout");
    const std::string link = dir + "/stdout";
    REQUIRE(symlink("/proc/self/fd/1", link.c_str()) == 0);
    CliResult r = run_bnsim({"trace", kDefault, "--dump", link});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(is_symlink(link));
    CHECK(looks_like_dump(r.out));
    CHECK(r.err.find("instructions") != std::string::npos);
}

TEST_CASE("output files: a FIFO and a symlink to one are written in place, never replaced") {
    const std::string dir = make_temp_dir("bnsim_out_fifo");
    const std::string fifo = dir + "/fifo", link = dir + "/link";
    REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
    REQUIRE(symlink("fifo", link.c_str()) == 0);
    for (const std::string& path : {fifo, link}) {
        FifoReader reader(fifo);
        CliResult r = run_bnsim({"trace", kDefault, "--dump", path});
        const std::string got = reader.finish();
        INFO(path << ": " << r.err);
        CHECK(r.exit_code == 0);
        CHECK(file_type(fifo) == S_IFIFO);
        CHECK(looks_like_dump(got));
    }
    CHECK(is_symlink(link));
    CHECK(names_in(dir).size() == 2);
}

TEST_CASE("output files: a character device (a null device made in a temp dir) is written in place, never replaced") {
    const std::string dir = make_temp_dir("bnsim_out_chr");
    const std::string dev = dir + "/null", link = dir + "/link";
    if (mknod(dev.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) {
        WARN("mknod is not permitted here (" << std::strerror(errno) << "); the device case is not exercised");
        return;
    }
    REQUIRE(symlink("null", link.c_str()) == 0);
    for (const std::string& path : {dev, link}) {
        CliResult r = run_bnsim({"run", kDefault, "--timeline", path});
        INFO(path << ": " << r.err);
        CHECK(r.exit_code == 0);
        CHECK(file_type(dev) == S_IFCHR);
    }
    CHECK(is_symlink(link));
}

TEST_CASE("output files: a symlink to a regular file keeps the link and its target gets the new content") {
    const std::string dir = make_temp_dir("bnsim_out_link");
    const std::string real = dir + "/real.jsonl", link = dir + "/link.jsonl", dangling = dir + "/dangling.jsonl";
    put(real, "old\n");
    REQUIRE(symlink("real.jsonl", link.c_str()) == 0);
    REQUIRE(symlink("new.jsonl", dangling.c_str()) == 0);  // the target does not exist yet
    CliResult r = run_bnsim({"trace", kDefault, "--dump", link});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(is_symlink(link));
    CHECK(looks_like_dump(slurp(real)));
    r = run_bnsim({"trace", kDefault, "--dump", dangling});
    REQUIRE(r.exit_code == 0);
    CHECK(is_symlink(dangling));
    CHECK(file_type(dir + "/new.jsonl") == S_IFREG);
    CHECK(looks_like_dump(slurp(dir + "/new.jsonl")));
    CHECK(!has_temporary(dir));
}

TEST_CASE("output files: the temporary name is unique, so a stale PATH.tmp or a concurrent run cannot break the write") {
    const std::string dir = make_temp_dir("bnsim_out_unique");
    const std::string out = dir + "/run.json";
    fs::create_directory(out + ".tmp");  // what a fixed temporary name would collide with
    CliResult r = run_bnsim({"run", kDefault, "--timeline", out});
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(json::parse(slurp(out)).contains("traceEvents"));
    fs::remove(out + ".tmp");
    // Several runs writing the same path at once: every run succeeds, the result is one whole file.
    std::vector<pid_t> pids;
    std::vector<int> outs, errs;
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < 4; ++i) {
        int o = -1, e = -1;
        pids.push_back(spawn_bnsim({"run", kDefault, "--set", "shape.C=256", "--timeline", out}, CliOptions{}, o, e));
        outs.push_back(o);
        errs.push_back(e);
    }
    for (size_t i = 0; i < pids.size(); ++i) {
        CliResult c = finish_bnsim(pids[i], outs[i], errs[i], 300, start);
        INFO(c.err);
        CHECK(c.exit_code == 0);
    }
    CHECK(json::parse(slurp(out)).contains("traceEvents"));
    CHECK(!has_temporary(dir));
}

TEST_CASE("output files: a killed validate leaves each .npy either the old file or a whole new one, and no temporary") {
    const std::string dir = make_temp_dir("bnsim_out_kill_npy");
    const std::string dx = dir + "/dx.npy";
    const std::string old = "an earlier good file";
    put(dx, old);
    int o = -1, e = -1;
    const auto start = std::chrono::steady_clock::now();
    const pid_t pid = spawn_bnsim({"validate", kDefault, "--order", "sequential", "--outputs", dir}, CliOptions{}, o, e);
    REQUIRE(pid > 0);
    // Kill it the moment the write of dx.npy starts: a temporary appears or dx.npy changes.
    bool killed = false;
    while (!killed && std::chrono::steady_clock::now() - start < std::chrono::seconds(300)) {
        std::error_code ec;
        if (has_temporary(dir) || fs::file_size(dx, ec) != old.size()) {
            kill(pid, SIGTERM);
            killed = true;
        }
        if (exited(pid)) break;
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    CliResult r = finish_bnsim(pid, o, e, 300, start);
    INFO(r.err);
    REQUIRE(killed);
    CHECK(r.signal == SIGTERM);
    CHECK(!has_temporary(dir));
    const std::string now = slurp(dx);
    const size_t whole = 128 + size_t(64) * 64 * 64 * 64 * 4;
    CHECK((now == old || now.size() == whole));
}

TEST_CASE("output files: an interrupted trace --dump leaves the old file and no temporary") {
    const std::string dir = make_temp_dir("bnsim_out_kill_dump");
    const std::string out = dir + "/trace.jsonl";
    put(out, "old\n");
    int o = -1, e = -1;
    const auto start = std::chrono::steady_clock::now();
    const pid_t pid = spawn_bnsim({"trace", kDefault, "--set", "shape.C=512", "--set", "shape.D=16", "--dump", out},
                                  CliOptions{}, o, e);
    REQUIRE(pid > 0);
    bool killed = false;
    while (!killed && std::chrono::steady_clock::now() - start < std::chrono::seconds(300)) {
        if (has_temporary(dir) || slurp(out) != "old\n") {
            kill(pid, SIGINT);
            killed = true;
        }
        if (exited(pid)) break;
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    CliResult r = finish_bnsim(pid, o, e, 300, start);
    REQUIRE(killed);
    CHECK(r.signal == SIGINT);
    CHECK(!has_temporary(dir));
    const std::string now = slurp(out);
    CHECK((now == "old\n" || looks_like_dump(now)));
}

TEST_CASE("output files: an unusable output path exits 2 before the run, with nothing on standard output") {
    const std::string dir = make_temp_dir("bnsim_out_unusable");
    put(dir + "/file", "x");
    fs::create_directory(dir + "/subdir");
    struct Case {
        std::vector<std::string> args;
        std::string expect;
    };
    const std::vector<Case> cases = {
        {{"run", kDefault, "--timeline", dir + "/file/run.json"}, "is not a directory"},
        {{"run", kDefault, "--timeline", dir + "/missing/run.json"}, "does not exist"},
        {{"run", kDefault, "--timeline", dir + "/subdir"}, "is a directory"},
        {{"trace", kDefault, "--dump", ""}, "expected a file path"},
        {{"run", kDefault, "--timeline", ""}, "expected a file path"},
        {{"validate", kDefault, "--outputs", dir + "/file/out"}, "is not a directory"},
        {{"validate", kDefault, "--save-inputs", "-"}, "expected a directory"},
    };
    for (const auto& c : cases) {
        CliResult r = run_bnsim(c.args);
        INFO(c.args[2] << " " << c.args[3] << ": " << r.err);
        CHECK(r.exit_code == 2);
        CHECK(r.out.empty());
        CHECK(r.err.find(c.expect) != std::string::npos);
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    }
    if (geteuid() != 0) {  // permission bits do not stop root
        fs::create_directory(dir + "/ro");
        chmod((dir + "/ro").c_str(), 0500);
        CliResult r = run_bnsim({"run", kDefault, "--timeline", dir + "/ro/run.json"});
        CHECK(r.exit_code == 2);
        CHECK(r.out.empty());
    }
}

TEST_CASE("output files: validate --outputs and --save-inputs create a missing directory") {
    const std::string dir = make_temp_dir("bnsim_out_mkdir");
    CliResult r = run_bnsim({"validate", kDefault, "--set", "shape.B=2", "--set", "shape.H=8", "--set", "shape.W=8",
                             "--order", "sequential", "--outputs", dir + "/a/b", "--save-inputs", dir + "/c"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    for (const char* f : {"/a/b/dx.npy", "/a/b/dgamma.npy", "/a/b/dbeta.npy", "/c/dy.npy", "/c/x_in.npy", "/c/gamma.npy"})
        CHECK(file_type(dir + f) == S_IFREG);
    CHECK(!has_temporary(dir + "/a/b"));
}

// ---- output folders: whole or absent (StagedDir) ----------------------------------------------

namespace {

const std::string kProfileRunConfig = kSrc + "/configs/calibration/m4_vector_add_free2.yaml";

std::vector<std::string> sorted_names(const std::string& dir) {
    auto n = names_in(dir);
    std::sort(n.begin(), n.end());
    return n;
}

}  // namespace

TEST_CASE("output folders: a write that fails part way (a full disk) leaves no --profile-out folder and no temporary") {
    const std::string dir = make_temp_dir("bnsim_staged_full");
    CliOptions o;
    o.cwd = dir;
    o.file_size_limit = 600;  // the first tables fit, instruction.csv and profile.json do not
    const CliResult r = run_bnsim({"run", kProfileRunConfig, "--profile-out", "prof"}, o);
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("write failed") != std::string::npos);
    CHECK_FALSE(fs::exists(dir + "/prof"));
    CHECK(names_in(dir).empty());  // no hidden temporary folder either
    // Into an earlier profile: the old tables stay, all of them, unchanged.
    REQUIRE(run_bnsim({"run", kProfileRunConfig, "--profile-out", "prof", "--set", "vector_add.free=200"}, CliOptions{60, dir}).exit_code == 0);
    const std::string before = slurp(dir + "/prof/instruction.csv");
    const CliResult again = run_bnsim({"run", kProfileRunConfig, "--profile-out", "prof"}, o);
    CHECK(again.exit_code == 2);
    CHECK(sorted_names(dir + "/prof") ==
          std::vector<std::string>{"dma_packet.csv", "instruction.csv", "metadata.csv", "profile.json", "summary.csv"});
    CHECK(slurp(dir + "/prof/instruction.csv") == before);
    CHECK(names_in(dir) == std::vector<std::string>{"prof"});
}

TEST_CASE("output folders: two runs into one --profile-out folder leave one run's tables, never a mix") {
    const std::string dir = make_temp_dir("bnsim_staged_two");
    CliOptions o;
    o.cwd = dir;
    REQUIRE(run_bnsim({"run", kProfileRunConfig, "--profile-out", "prof", "--set", "vector_add.free=200"}, o).exit_code == 0);
    const std::string a_summary = slurp(dir + "/prof/summary.csv"), a_instr = slurp(dir + "/prof/instruction.csv");
    REQUIRE(run_bnsim({"run", kProfileRunConfig, "--profile-out", "prof"}, o).exit_code == 0);
    const std::string b_summary = slurp(dir + "/prof/summary.csv"), b_instr = slurp(dir + "/prof/instruction.csv");
    CHECK(a_summary != b_summary);
    CHECK(a_instr != b_instr);
    // Both at once: whichever finishes last wins, with all of its tables.
    const auto start = std::chrono::steady_clock::now();
    int o1, e1, o2, e2;
    const pid_t p1 = spawn_bnsim({"run", kProfileRunConfig, "--profile-out", "prof", "--set", "vector_add.free=200"}, o, o1, e1);
    const pid_t p2 = spawn_bnsim({"run", kProfileRunConfig, "--profile-out", "prof"}, o, o2, e2);
    REQUIRE(finish_bnsim(p1, o1, e1, 60, start).exit_code == 0);
    REQUIRE(finish_bnsim(p2, o2, e2, 60, start).exit_code == 0);
    const std::string s = slurp(dir + "/prof/summary.csv"), i = slurp(dir + "/prof/instruction.csv");
    CHECK(((s == a_summary && i == a_instr) || (s == b_summary && i == b_instr)));
    CHECK(names_in(dir) == std::vector<std::string>{"prof"});
}

TEST_CASE("output folders: --profile-out DIR/ with a trailing slash names DIR") {
    const std::string dir = make_temp_dir("bnsim_staged_slash");
    const CliResult r = run_bnsim({"run", kProfileRunConfig, "--profile-out", "prof/"}, CliOptions{60, dir});
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(sorted_names(dir + "/prof") ==
          std::vector<std::string>{"dma_packet.csv", "instruction.csv", "metadata.csv", "profile.json", "summary.csv"});
    CHECK(names_in(dir) == std::vector<std::string>{"prof"});
}

TEST_CASE("output folders: --profile-out never replaces a folder holding other files") {
    const std::string dir = make_temp_dir("bnsim_staged_foreign");
    fs::create_directories(dir + "/mine");
    put(dir + "/mine/notes.txt", "keep me\n");
    const CliResult r = run_bnsim({"run", kProfileRunConfig, "--profile-out", "mine"}, CliOptions{60, dir});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("notes.txt") != std::string::npos);
    CHECK(slurp(dir + "/mine/notes.txt") == "keep me\n");
    CHECK(sorted_names(dir + "/mine") == std::vector<std::string>{"notes.txt"});
}

TEST_CASE("output folders: an interrupted profile compare leaves no temporary folder behind") {
    const std::string dir = make_temp_dir("bnsim_staged_compare");
    const std::string tmp = dir + "/tmp";
    fs::create_directories(tmp);
    setenv("TMPDIR", tmp.c_str(), 1);  // inherited by the child: compare's temporaries go here
    CliOptions o;
    o.cwd = dir;
    const auto start = std::chrono::steady_clock::now();
    int out_fd, err_fd;
    // A big enough shape that the simulation is still running when the signal comes.
    const pid_t pid = spawn_bnsim({"compare", kSrc + "/tests/data/profiles/synthetic-profile.json", "--against",
                                   kSrc + "/configs/default.yaml", "--set", "shape.C=1024", "--set", "shape.D=8"},
                                  o, out_fd, err_fd);
    unsetenv("TMPDIR");
    bool seen = false;
    for (int i = 0; i < 400 && !seen; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        seen = !names_in(tmp).empty();
    }
    REQUIRE(seen);  // the temporary folder exists while compare runs
    kill(pid, SIGTERM);
    const CliResult r = finish_bnsim(pid, out_fd, err_fd, 60, start);
    CHECK(r.signal == SIGTERM);
    // Its simulating child stops with it and removes its own temporary too.
    for (int i = 0; i < 200 && !names_in(tmp).empty(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    CHECK(names_in(tmp).empty());
}
