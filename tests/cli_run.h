#pragma once
// Runs the real bnsim binary as a child process with a deadline, capturing stdout and stderr
// separately (a hang is killed and reported, never waited on forever).
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <string>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace bnsim::test {

struct CliResult {
    int exit_code = -1;  // -1 when ended by a signal
    int signal = 0;      // the signal that ended it, or 0
    bool timed_out = false;
    double seconds = 0;
    std::string out, err;
};

struct CliOptions {
    double timeout_s = 60;
    std::string cwd;                 // run in this directory (default: the test's)
    uint64_t address_space_limit = 0;  // RLIMIT_AS for the child, 0: none
    // RLIMIT_FSIZE for the child, 0: none. A write past it fails with EFBIG (SIGXFSZ is ignored
    // in the child), as a full disk fails a write with ENOSPC.
    uint64_t file_size_limit = 0;
};

// Starts bnsim with args; returns its pid and the read ends of its stdout and stderr.
inline pid_t spawn_bnsim(const std::vector<std::string>& args, const CliOptions& o, int& out_fd, int& err_fd) {
    int po[2], pe[2];
    if (pipe(po) != 0 || pipe(pe) != 0) return -1;
    const pid_t pid = fork();
    if (pid == 0) {
        dup2(po[1], 1);
        dup2(pe[1], 2);
        close(po[0]);
        close(pe[0]);
        close(po[1]);
        close(pe[1]);
        const int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0) dup2(devnull, 0);
        if (!o.cwd.empty() && chdir(o.cwd.c_str()) != 0) _exit(126);
        if (o.address_space_limit) {
            struct rlimit rl{o.address_space_limit, o.address_space_limit};
            setrlimit(RLIMIT_AS, &rl);
        }
        if (o.file_size_limit) {
            signal(SIGXFSZ, SIG_IGN);
            struct rlimit rl{o.file_size_limit, o.file_size_limit};
            setrlimit(RLIMIT_FSIZE, &rl);
        }
        setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
        std::vector<char*> argv;
        // BNSIM_TEST_BINARY runs the same tests against another build (e.g. an older one).
        const char* other = getenv("BNSIM_TEST_BINARY");
        static std::string exe = other && *other ? other : BNSIM_BINARY;
        argv.push_back(&exe[0]);
        std::vector<std::string> copy = args;
        for (auto& a : copy) argv.push_back(&a[0]);
        argv.push_back(nullptr);
        execv(exe.c_str(), argv.data());
        _exit(127);
    }
    close(po[1]);
    close(pe[1]);
    out_fd = po[0];
    err_fd = pe[0];
    return pid;
}

// Reads both pipes until they close or the deadline passes, then reaps the child.
inline CliResult finish_bnsim(pid_t pid, int out_fd, int err_fd, double timeout_s,
                              std::chrono::steady_clock::time_point start) {
    CliResult r;
    const auto deadline = start + std::chrono::duration<double>(timeout_s);
    int open_fds = 2;
    char buf[65536];
    while (open_fds > 0) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            r.timed_out = true;
            kill(pid, SIGKILL);
            break;
        }
        struct pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
        const int n = poll(fds, 2, int(std::min<int64_t>(left.count(), 1000)));
        if (n < 0 && errno == EINTR) continue;
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            const ssize_t got = read(fds[i].fd, buf, sizeof buf);
            if (got > 0) {
                (i == 0 ? r.out : r.err).append(buf, size_t(got));
            } else {
                close(fds[i].fd);
                (i == 0 ? out_fd : err_fd) = -1;
                --open_fds;
            }
        }
    }
    if (out_fd >= 0) close(out_fd);
    if (err_fd >= 0) close(err_fd);
    int status = 0;
    waitpid(pid, &status, 0);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
    return r;
}

inline CliResult run_bnsim(const std::vector<std::string>& args, const CliOptions& o = {}) {
    const auto start = std::chrono::steady_clock::now();
    int out_fd = -1, err_fd = -1;
    const pid_t pid = spawn_bnsim(args, o, out_fd, err_fd);
    if (pid < 0) return CliResult{};
    return finish_bnsim(pid, out_fd, err_fd, o.timeout_s, start);
}

// run_bnsim with a command line split at spaces (for arguments that hold none).
inline CliResult run_bnsim_words(const std::string& line, const CliOptions& o = {}) {
    std::vector<std::string> args;
    std::string word;
    for (char c : line + " ") {
        if (c != ' ') {
            word += c;
        } else if (!word.empty()) {
            args.push_back(word);
            word.clear();
        }
    }
    return run_bnsim(args, o);
}

// bnsim's standard output then its standard error for a command line split at spaces, and its
// exit status in *status; the run is killed after timeout_s seconds.
inline std::string bnsim_output(const std::string& line, int* status, double timeout_s = 300) {
    const CliResult r = run_bnsim_words(line, CliOptions{timeout_s, "", 0});
    *status = r.exit_code;
    return r.out + r.err;
}

// A fresh directory under /tmp, removed by the caller if it wants.
inline std::string make_temp_dir(const char* prefix) {
    std::string t = std::string("/tmp/") + prefix + "_XXXXXX";
    const char* d = mkdtemp(&t[0]);
    return d ? std::string(d) : std::string();
}

}  // namespace bnsim::test
