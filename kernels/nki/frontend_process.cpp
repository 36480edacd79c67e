#include "kernels/nki/frontend_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "kernels/kernel_target.h"
#include "kernels/trace_cache.h"
#include "trace/fnv1a64.h"

extern char** environ;

namespace bnsim::nki {
namespace {

namespace fs = std::filesystem;

// Removes the child's folder however run_frontend leaves.
struct TempDir {
    std::string path;
    TempDir() {
        const char* base = std::getenv("TMPDIR");
        std::string tmpl = std::string(base && *base ? base : "/tmp") + "/bnsim-nki-XXXXXX";
        std::vector<char> buf(tmpl.begin(), tmpl.end());
        buf.push_back('\0');
        if (!mkdtemp(buf.data())) throw KernelError(std::string("nki: cannot make a temporary folder (") + std::strerror(errno) + ")");
        path = buf.data();
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

// The last non-empty line of the child's stderr: the frontend's one-line message.
std::string last_line(const std::string& s) {
    size_t end = s.find_last_not_of("\r\n ");
    if (end == std::string::npos) return "";
    size_t start = s.rfind('\n', end);
    return s.substr(start == std::string::npos ? 0 : start + 1, end + 1 - (start == std::string::npos ? 0 : start + 1));
}

}  // namespace

std::string frontend_dir() {
    const char* env = std::getenv("BNSIM_NKI_FRONTEND");
    if (env && *env) return env;
    return BNSIM_NKI_FRONTEND_DIR;
}

static TraceFile read_frontend_trace(const std::string& file) {
    try {
        return read_trace_file(file);
    } catch (const TraceFileError& e) {
        throw KernelError(std::string("nki: the frontend wrote a trace bnsim cannot read: ") + e.what());
    }
}

// The frontend's own Python files, by their contents (hashed once per process): a trace kept
// across commands is made again after the frontend changes.
static const std::string& frontend_stamp() {
    static const std::string stamp = [] {
        std::vector<std::string> files;
        std::error_code ec;
        for (fs::recursive_directory_iterator it(frontend_dir(), ec), end; !ec && it != end; it.increment(ec))
            if (it->path().extension() == ".py") files.push_back(it->path().string());
        std::sort(files.begin(), files.end());
        uint64_t h = fnv1a64("");
        for (const auto& f : files) {
            const uint64_t contents = file_contents_hash(f).value_or(0);
            h = fnv1a64(std::string_view(reinterpret_cast<const char*>(&contents), sizeof contents), fnv1a64(f, h));
        }
        char hex[17];
        std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
        return std::to_string(files.size()) + " files " + hex;
    }();
    return stamp;
}

std::string frontend_key(const FrontendRequest& r) {
    return r.python + "\n" + frontend_dir() + " " + frontend_stamp() + "\n" + r.source_stamp + "\n" + r.request_json;
}

TraceFile run_frontend(const FrontendRequest& r) {
    TempDir dir;
    const std::string req = dir.path + "/request.json", out = dir.path + "/trace.jsonl";
    {
        std::ofstream f(req);
        f << r.request_json;
        if (!f) throw KernelError("nki: cannot write the frontend's request in " + dir.path);
    }
    int err[2];
    if (pipe2(err, O_CLOEXEC) != 0) throw KernelError(std::string("nki: pipe: ") + std::strerror(errno));
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, err[1], 1);  // the frontend prints nothing on stdout;
    posix_spawn_file_actions_adddup2(&fa, err[1], 2);  // whatever it does must not reach bnsim's
    // The frontend's packages first on the path, so `import nki` finds the stand-in even where
    // the real SDK is installed; the child's own environment otherwise.
    std::vector<std::string> env_s;
    std::string pp = "PYTHONPATH=" + frontend_dir();
    for (char** e = environ; *e; ++e) {
        if (std::strncmp(*e, "PYTHONPATH=", 11) == 0) pp += std::string(":") + (*e + 11);
        else env_s.emplace_back(*e);
    }
    env_s.push_back(pp);
    env_s.push_back("PYTHONDONTWRITEBYTECODE=1");
    std::vector<char*> envp;
    for (auto& s : env_s) envp.push_back(s.data());
    envp.push_back(nullptr);
    std::vector<std::string> argv_s = {r.python, "-m", "bnsim_nki.run", req, out};
    std::vector<char*> argv;
    for (auto& s : argv_s) argv.push_back(s.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    const int rc = r.python.find('/') == std::string::npos
                       ? posix_spawnp(&pid, r.python.c_str(), &fa, nullptr, argv.data(), envp.data())
                       : posix_spawn(&pid, r.python.c_str(), &fa, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&fa);
    close(err[1]);
    if (rc != 0) {
        close(err[0]);
        throw KernelError("nki.python: cannot run '" + r.python + "' (" + std::strerror(rc) +
                          "); expected a Python 3 interpreter on PATH or its path");
    }
    // Read stderr (keeping its last 64 KiB) until the child closes it or the time runs out.
    std::string text;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(r.timeout_s);
    bool timed_out = false;
    while (true) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
        if (left <= 0) {
            timed_out = true;
            break;
        }
        pollfd p{err[0], POLLIN, 0};
        const int n = poll(&p, 1, int(std::min<long long>(left, 1000)));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) continue;
        char buf[4096];
        const ssize_t got = read(err[0], buf, sizeof buf);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        text.append(buf, size_t(got));
        if (text.size() > 65536) text.erase(0, text.size() - 65536);
    }
    close(err[0]);
    if (timed_out) kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (timed_out)
        throw KernelError("nki: tracing the kernel took over " + std::to_string(int(r.timeout_s)) +
                          " s (a loop that never ends?); expected it to finish");
    if (WIFEXITED(status) && WEXITSTATUS(status) == 2) {
        const std::string line = last_line(text);
        throw KernelError(line.empty() ? "nki: the frontend refused the kernel without a message" : line);
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        const std::string line = last_line(text);
        if (WIFEXITED(status) && WEXITSTATUS(status) == 1 && line.find("No module named 'bnsim_nki'") != std::string::npos)
            throw KernelError("nki: the frontend is not at " + frontend_dir() + " (set BNSIM_NKI_FRONTEND)");
        throw KernelError("nki: the frontend (" + r.python + ") failed" +
                          (WIFSIGNALED(status) ? " with signal " + std::to_string(WTERMSIG(status)) : "") +
                          (line.empty() ? std::string() : ": " + line));
    }
    return read_frontend_trace(out);
}

}  // namespace bnsim::nki
