#include "sim/runner/worker_pool.h"

#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <functional>
#include <list>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <vector>


namespace bnsim {

namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kOutputTail = 4000;  // bytes of a child's own output kept for diagnostics

// Runs `f` where its allocations do not reuse the parent's freed memory. A forked child's main
// heap is the parent's, copy-on-write: glibc hands out the parent's free blocks first, and
// writing one (its neighbours' headers too) copies its page. A parent that has loaded a
// measurement file and a hundred configs has them all over its heap: a one-instruction
// calibration point took some 300 page faults, most of them such copies. A new thread gets its
// own malloc arena, fresh pages only (measured: bnsim calibrate's 98 per-instruction rows from
// 146 to 113 ms of CPU). The arena grows in steps of M_TOP_PAD, each an mprotect call: 16 MiB
// steps, and nothing trimmed, since the process ends with the job. If no thread can be
// started, `f` runs here.
void run_on_own_heap(const std::function<void()>& f) {
    mallopt(M_TOP_PAD, 16 << 20);
    mallopt(M_TRIM_THRESHOLD, INT_MAX);
    try {
        std::thread t(f);
        t.join();
    } catch (const std::system_error&) {
        f();
    }
}

struct Child {
    size_t index = 0;
    pid_t pid = -1;
    int result_fd = -1, output_fd = -1;
    JobResult r;
    Clock::time_point deadline;
};

void write_all(int fd, const std::string& s) {
    size_t done = 0;
    while (done < s.size()) {
        const ssize_t n = write(fd, s.data() + done, s.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) _exit(3);
        done += size_t(n);
    }
}

Child spawn(size_t index, const PoolOptions& opts, const std::function<std::string(size_t)>& work) {
    int res[2], out[2];
    if (pipe2(res, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    if (pipe2(out, O_CLOEXEC) != 0) {
        close(res[0]);
        close(res[1]);
        throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    }
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
        // The child: die with the parent, default signals, own output captured.
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        std::signal(SIGINT, SIG_DFL);
        std::signal(SIGTERM, SIG_DFL);
        std::signal(SIGPIPE, SIG_DFL);
        close(res[0]);
        close(out[0]);
        dup2(out[1], STDOUT_FILENO);
        dup2(out[1], STDERR_FILENO);
        close(out[1]);
        std::string payload, failure;
        run_on_own_heap([&] {
            try {
                payload = work(index);
            } catch (const std::exception& e) {
                failure = std::string("uncaught exception: ") + e.what() + "\n";
            }
        });
        if (!failure.empty()) {
            write_all(STDERR_FILENO, failure);
            _exit(4);
        }
        write_all(res[1], payload);
        _exit(0);  // no static destructors: the parent owns every file
    }
    close(res[1]);
    close(out[1]);
    Child c;
    c.index = index;
    c.pid = pid;
    c.result_fd = res[0];
    c.output_fd = out[0];
    c.deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double>(opts.timeout_s > 0 ? opts.timeout_s : 0));
    return c;
}

// Reads what is available; closes the fd at end of file.
void drain(int& fd, std::string& sink, bool tail_only) {
    char buf[65536];
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0) {
        sink.append(buf, size_t(n));
        if (tail_only && sink.size() > 2 * kOutputTail) sink.erase(0, sink.size() - kOutputTail);
    } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        close(fd);
        fd = -1;
    }
}

void reap(Child& c) {
    for (int* fd : {&c.result_fd, &c.output_fd})
        if (*fd >= 0) {
            close(*fd);
            *fd = -1;
        }
    int status = 0;
    while (waitpid(c.pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (c.r.kind == JobResult::Kind::timed_out) return;
    if (WIFSIGNALED(status)) {
        c.r.kind = JobResult::Kind::crashed;
        c.r.signal = WTERMSIG(status);
    } else {
        c.r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        if (c.r.exit_code != 0) c.r.kind = JobResult::Kind::crashed;
    }
    if (c.r.output.size() > kOutputTail) c.r.output.erase(0, c.r.output.size() - kOutputTail);
}

}  // namespace

std::string describe_crash(const JobResult& r) {
    std::string s;
    if (r.kind == JobResult::Kind::timed_out)
        s = "timed out (killed)";
    else if (r.signal)
        s = "killed by signal " + std::to_string(r.signal) + " (" + strsignal(r.signal) + ")";
    else
        s = "exited with status " + std::to_string(r.exit_code) + " without a result";
    std::string out = r.output;
    while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
    if (!out.empty()) s += ": " + out.substr(out.rfind('\n') == std::string::npos ? 0 : out.rfind('\n') + 1);
    return s;
}

void run_pool(size_t count, const PoolOptions& opts, const std::function<std::string(size_t)>& work,
              const std::function<void(size_t, const JobResult&)>& on_done, const std::function<bool()>& stop) {
    std::list<Child> running;
    size_t next = 0;
    const size_t width = size_t(std::max(1, opts.jobs));
    auto stopping = [&] { return stop && stop(); };
    auto fill = [&] {
        while (running.size() < width && next < count && !stopping()) running.push_back(spawn(next++, opts, work));
    };
    while (true) {
        fill();
        if (running.empty()) break;
        if (stopping()) {
            for (auto& c : running) {
                kill(c.pid, SIGKILL);
                c.r.kind = JobResult::Kind::timed_out;
                reap(c);
            }
            break;
        }
        std::vector<pollfd> fds;
        std::vector<std::pair<Child*, bool>> owners;  // child, is result fd
        int wait_ms = -1;
        const auto now = Clock::now();
        for (auto& c : running) {
            if (c.result_fd >= 0) fds.push_back({c.result_fd, POLLIN, 0}), owners.push_back({&c, true});
            if (c.output_fd >= 0) fds.push_back({c.output_fd, POLLIN, 0}), owners.push_back({&c, false});
            if (opts.timeout_s > 0) {
                const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(c.deadline - now).count();
                wait_ms = wait_ms < 0 ? int(std::max<long long>(left, 0)) : std::min(wait_ms, int(std::max<long long>(left, 0)));
            }
        }
        if (stop) wait_ms = wait_ms < 0 ? 200 : std::min(wait_ms, 200);  // notice a stop request
        const int n = poll(fds.data(), fds.size(), wait_ms);
        if (n < 0 && errno != EINTR) throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
        for (size_t i = 0; n > 0 && i < fds.size(); ++i) {
            if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            Child& c = *owners[i].first;
            if (owners[i].second)
                drain(c.result_fd, c.r.payload, false);
            else
                drain(c.output_fd, c.r.output, true);
        }
        const auto after = Clock::now();
        std::list<Child> ended;
        for (auto it = running.begin(); it != running.end();) {
            Child& c = *it;
            const bool expired = opts.timeout_s > 0 && after >= c.deadline && (c.result_fd >= 0 || c.output_fd >= 0);
            if (expired) {
                kill(c.pid, SIGKILL);
                c.r.kind = JobResult::Kind::timed_out;
            }
            if (expired || (c.result_fd < 0 && c.output_fd < 0)) {
                reap(c);
                auto done = it++;
                ended.splice(ended.end(), running, done);
            } else {
                ++it;
            }
        }
        fill();  // the freed cores start the next jobs while the parent reports the ended ones
        for (const Child& c : ended) on_done(c.index, c.r);
    }
}

}  // namespace bnsim
