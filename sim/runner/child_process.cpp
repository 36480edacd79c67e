#include "sim/runner/child_process.h"

#include <poll.h>
#include <sys/wait.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cerrno>
#include <algorithm>
#include <climits>
#include <cstring>
#include <stdexcept>

namespace bnsim {

std::string self_executable() {
    char buf[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) throw std::runtime_error(std::string("cannot read /proc/self/exe: ") + std::strerror(errno));
    return std::string(buf, size_t(n));
}

ChildResult run_child(const std::string& exe, const std::vector<std::string>& args, double timeout_s) {
    int out_pipe[2], err_pipe[2];
    if (pipe(out_pipe) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    if (pipe(err_pipe) != 0) {
        close(out_pipe[0]);
        close(out_pipe[1]);
        throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    }
    std::vector<std::string> argv_s{exe};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);

    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
        // A child outlives no parent: if bnsim is killed, its children stop too (and remove
        // their temporaries) rather than write into folders the parent has cleaned up.
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent) _exit(1);
        dup2(out_pipe[1], STDOUT_FILENO);
        dup2(err_pipe[1], STDERR_FILENO);
        close(out_pipe[0]);
        close(out_pipe[1]);
        close(err_pipe[0]);
        close(err_pipe[1]);
        execv(exe.c_str(), argv.data());
        const char* m = "exec failed\n";
        (void)!write(STDERR_FILENO, m, std::strlen(m));
        _exit(127);
    }
    close(out_pipe[1]);
    close(err_pipe[1]);
    ChildResult r;
    pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
    std::string* sinks[2] = {&r.out, &r.err};
    int open_fds = 2;
    char buf[65536];
    using clock = std::chrono::steady_clock;
    const auto deadline = clock::now() + std::chrono::duration_cast<clock::duration>(
                                             std::chrono::duration<double>(timeout_s > 0 ? timeout_s : 0));
    while (open_fds > 0) {
        int wait_ms = -1;
        if (timeout_s > 0) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now()).count();
            if (left <= 0) {
                kill(pid, SIGKILL);
                r.timed_out = true;
                break;
            }
            wait_ms = int(std::min<long long>(left, 1000));
        }
        const int n = poll(fds, 2, wait_ms);
        if (n < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (n == 0) continue;
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            const ssize_t got = read(fds[i].fd, buf, sizeof buf);
            if (got > 0) {
                sinks[i]->append(buf, size_t(got));
            } else if (got == 0 || errno != EINTR) {
                close(fds[i].fd);
                fds[i].fd = -1;
                --open_fds;
            }
        }
    }
    for (auto& f : fds)
        if (f.fd >= 0) close(f.fd);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

}  // namespace bnsim
