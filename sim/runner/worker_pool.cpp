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
#include <deque>
#include <iterator>
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
// steps, and nothing trimmed: a worker's next job reuses the pages its last one freed (glibc
// hands a finished thread's arena to the next thread). If no thread can be started, `f` runs
// here.
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

// One forked worker. It runs jobs one after another as the parent hands it their indices (each
// simulation in a fresh SystemC context: sim/simulate/simulate.cpp), so a command of thousands
// of points forks `jobs` times, not once per point: a fork and the first touches of the
// parent's copied pages cost about 0.7 ms of system time, as much as a small point's whole
// simulation. A worker that crashes, throws or overruns its job's time takes only that job
// with it; the next job goes to a new worker.
struct Worker {
    pid_t pid = -1;
    int command_fd = -1, result_fd = -1, output_fd = -1;
    bool busy = false;
    size_t index = 0;        // the job it runs, while busy
    std::string frames;      // result bytes read, not yet a whole frame
    JobResult r;             // the running job's result so far (its output's tail)
    Clock::time_point deadline;
    Clock::time_point started;  // when its running job was handed to it
};

// Writes all `size` bytes; false if the reader is gone.
bool write_fully(int fd, const void* data, size_t size) {
    const char* p = static_cast<const char*>(data);
    size_t done = 0;
    while (done < size) {
        const ssize_t n = write(fd, p + done, size - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        done += size_t(n);
    }
    return true;
}

// In a worker: a reader gone is the parent gone.
void write_all(int fd, const void* data, size_t size) {
    if (!write_fully(fd, data, size)) _exit(3);
}

// Reads exactly `size` bytes; false at end of file.
bool read_all(int fd, void* data, size_t size) {
    char* p = static_cast<char*>(data);
    size_t done = 0;
    while (done < size) {
        const ssize_t n = read(fd, p + done, size - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        done += size_t(n);
    }
    return true;
}

// The worker's life: a job in (8 bytes of length, then the bytes), its result out (the same
// framing), until the parent closes the command pipe.
[[noreturn]] void worker_main(int command_fd, int result_fd, const std::function<std::string(const std::string&)>& work) {
    constexpr uint64_t kMaxJobBytes = uint64_t(1) << 30;  // the parent's own frames are far smaller
    for (uint64_t size; read_all(command_fd, &size, sizeof size);) {
        if (size > kMaxJobBytes) _exit(5);
        std::string job(size_t(size), '\0');
        if (!read_all(command_fd, job.data(), job.size())) break;
        std::string payload, failure;
        run_on_own_heap([&] {
            try {
                payload = work(job);
            } catch (const std::exception& e) {
                failure = std::string("uncaught exception: ") + e.what() + "\n";
            }
        });
        if (!failure.empty()) {
            write_all(STDERR_FILENO, failure.data(), failure.size());
            _exit(4);
        }
        const uint64_t out = payload.size();
        write_all(result_fd, &out, sizeof out);
        write_all(result_fd, payload.data(), payload.size());
    }
    _exit(0);  // no static destructors: the parent owns every file
}

// `others`: the running workers, whose pipes the new one must not hold (a command pipe's write
// end open in a second worker would keep the first from ever reading its end of file).
Worker spawn(const std::function<std::string(const std::string&)>& work, const std::list<Worker>& others) {
    int cmd[2] = {-1, -1}, res[2] = {-1, -1}, out[2] = {-1, -1};
    if (pipe2(cmd, O_CLOEXEC) != 0 || pipe2(res, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) {
        const int e = errno;
        for (int fd : {cmd[0], cmd[1], res[0], res[1], out[0], out[1]})
            if (fd >= 0) close(fd);
        throw std::runtime_error(std::string("pipe: ") + std::strerror(e));
    }
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid < 0) {
        const int e = errno;
        for (int fd : {cmd[0], cmd[1], res[0], res[1], out[0], out[1]}) close(fd);
        throw std::runtime_error(std::string("fork: ") + std::strerror(e));
    }
    if (pid == 0) {
        // The worker: die with the parent, default signals, own output captured.
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        std::signal(SIGINT, SIG_DFL);
        std::signal(SIGTERM, SIG_DFL);
        std::signal(SIGPIPE, SIG_DFL);
        for (const Worker& o : others)
            for (int fd : {o.command_fd, o.result_fd, o.output_fd})
                if (fd >= 0) close(fd);
        close(cmd[1]);
        close(res[0]);
        close(out[0]);
        dup2(out[1], STDOUT_FILENO);
        dup2(out[1], STDERR_FILENO);
        close(out[1]);
        worker_main(cmd[0], res[1], work);
    }
    close(cmd[0]);
    close(res[1]);
    close(out[1]);
    Worker w;
    w.pid = pid;
    w.command_fd = cmd[1];
    w.result_fd = res[0];
    w.output_fd = out[0];
    return w;
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

// A whole result frame at the front of `frames`: moved into `payload`.
bool take_frame(std::string& frames, std::string& payload) {
    uint64_t size = 0;
    if (frames.size() < sizeof size) return false;
    std::memcpy(&size, frames.data(), sizeof size);
    if (frames.size() - sizeof size < size) return false;
    payload = frames.substr(sizeof size, size_t(size));
    frames.erase(0, sizeof size + size_t(size));
    return true;
}

// Ends a worker: its pipes closed, it waited for. A job it was running ends as the worker did.
void reap(Worker& w) {
    for (int* fd : {&w.command_fd, &w.result_fd, &w.output_fd})
        if (*fd >= 0) {
            close(*fd);
            *fd = -1;
        }
    int status = 0;
    while (waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!w.busy || w.r.kind == JobResult::Kind::timed_out) return;
    if (WIFSIGNALED(status)) {
        w.r.kind = JobResult::Kind::crashed;
        w.r.signal = WTERMSIG(status);
    } else {
        w.r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        w.r.kind = JobResult::Kind::crashed;  // it ended without the job's result
    }
    if (w.r.output.size() > kOutputTail) w.r.output.erase(0, w.r.output.size() - kOutputTail);
}

// Hands job `index` to an idle worker; false if the worker is gone (its command pipe broken).
bool assign(Worker& w, size_t index, const std::string& job, double timeout_s) {
    const uint64_t size = job.size();
    if (!write_fully(w.command_fd, &size, sizeof size) || !write_fully(w.command_fd, job.data(), job.size())) return false;
    w.busy = true;
    w.index = index;
    w.r = JobResult{};
    w.started = Clock::now();
    w.deadline = w.started + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double>(timeout_s > 0 ? timeout_s : 0));
    return true;
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

struct WorkerPool::State {
    int jobs = 1;
    std::function<std::string(const std::string&)> work;
    std::list<Worker> workers;
};

WorkerPool::WorkerPool(int jobs, std::function<std::string(const std::string& job)> work)
    : state_(std::make_unique<State>()) {
    state_->jobs = std::max(1, jobs);
    state_->work = std::move(work);
}

// Idle workers end when their command pipe closes.
WorkerPool::~WorkerPool() {
    for (auto& w : state_->workers) reap(w);
}

int WorkerPool::jobs() const { return state_->jobs; }
size_t WorkerPool::workers() const { return state_->workers.size(); }

void WorkerPool::run(const std::vector<std::string>& jobs, double timeout_s,
                     const std::function<void(size_t, const JobResult&)>& on_done, const std::function<bool()>& stop,
                     const std::vector<size_t>& order) {
    if (!order.empty()) {
        std::vector<char> seen(jobs.size(), 0);
        bool permutation = order.size() == jobs.size();
        for (size_t k = 0; permutation && k < order.size(); ++k)
            permutation = order[k] < jobs.size() && !seen[order[k]]++;
        if (!permutation) throw std::logic_error("WorkerPool::run: order is not a permutation of the jobs");
    }
    const size_t count = jobs.size();
    const auto& work = state_->work;
    std::list<Worker>& workers = state_->workers;
    // A write to a worker that has just died must fail with EPIPE, not end this process.
    struct sigaction ignore {}, old_pipe {};
    ignore.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ignore, &old_pipe);
    std::deque<size_t> pending;  // jobs whose worker died before it read them, first
    size_t next = 0;
    size_t running = 0;
    const size_t width = size_t(state_->jobs);
    auto stopping = [&] { return stop && stop(); };
    auto has_job = [&] { return !pending.empty() || next < count; };
    auto take_job = [&] {
        if (!pending.empty()) {
            const size_t i = pending.front();
            pending.pop_front();
            return i;
        }
        const size_t k = next++;
        return order.empty() ? k : order[k];
    };
    auto end_worker = [&](std::list<Worker>::iterator it) {
        reap(*it);
        return workers.erase(it);
    };
    // Every idle worker gets a job, and new workers start while jobs wait and cores are free.
    auto fill = [&] {
        for (auto it = workers.begin(); it != workers.end() && has_job() && !stopping();) {
            if (it->busy) {
                ++it;
                continue;
            }
            const size_t i = take_job();
            if (assign(*it, i, jobs[i], timeout_s)) {
                ++running;
                ++it;
            } else {
                pending.push_front(i);
                it = end_worker(it);
            }
        }
        while (workers.size() < width && has_job() && !stopping()) {
            workers.push_back(spawn(work, workers));
            const size_t i = take_job();
            if (!assign(workers.back(), i, jobs[i], timeout_s)) {
                pending.push_front(i);
                end_worker(std::prev(workers.end()));
                throw std::runtime_error("a new worker process ended before its first job");
            }
            ++running;
        }
    };
    try {
        while (true) {
            fill();
            if (running == 0 && (!has_job() || stopping())) break;
            if (stopping()) {
                for (auto& w : workers) {
                    kill(w.pid, SIGKILL);
                    w.r.kind = JobResult::Kind::timed_out;
                    reap(w);
                }
                workers.clear();
                break;
            }
            std::vector<pollfd> fds;
            std::vector<std::pair<Worker*, bool>> owners;  // worker, is result fd
            int wait_ms = -1;
            const auto now = Clock::now();
            for (auto& w : workers) {
                if (w.result_fd >= 0) fds.push_back({w.result_fd, POLLIN, 0}), owners.push_back({&w, true});
                if (w.output_fd >= 0) fds.push_back({w.output_fd, POLLIN, 0}), owners.push_back({&w, false});
                if (timeout_s > 0 && w.busy) {
                    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(w.deadline - now).count();
                    const int l = int(std::max<long long>(left, 0));
                    wait_ms = wait_ms < 0 ? l : std::min(wait_ms, l);
                }
            }
            if (stop) wait_ms = wait_ms < 0 ? 200 : std::min(wait_ms, 200);  // notice a stop request
            const int n = poll(fds.data(), fds.size(), wait_ms);
            if (n < 0 && errno != EINTR) throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
            for (size_t i = 0; n > 0 && i < fds.size(); ++i) {
                if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
                Worker& w = *owners[i].first;
                if (owners[i].second) drain(w.result_fd, w.frames, false);
                else drain(w.output_fd, w.r.output, true);
            }
            const auto after = Clock::now();
            std::vector<std::pair<size_t, JobResult>> ended;
            // A busy worker whose result has arrived whole is idle again, its job ended.
            auto take_result = [&](Worker& w) {
                std::string payload;
                if (!w.busy || !take_frame(w.frames, payload)) return;
                w.r.kind = JobResult::Kind::done;
                w.r.payload = std::move(payload);
                w.r.seconds = std::chrono::duration<double>(Clock::now() - w.started).count();
                if (w.r.output.size() > kOutputTail) w.r.output.erase(0, w.r.output.size() - kOutputTail);
                ended.emplace_back(w.index, std::move(w.r));
                w.r = JobResult{};
                w.busy = false;
                --running;
            };
            for (auto it = workers.begin(); it != workers.end();) {
                Worker& w = *it;
                take_result(w);
                const bool expired = timeout_s > 0 && w.busy && after >= w.deadline;
                if (expired) {
                    kill(w.pid, SIGKILL);
                    w.r.kind = JobResult::Kind::timed_out;
                }
                // A worker is done for when it overran or either of its pipes reached its end.
                if (expired || w.result_fd < 0 || w.output_fd < 0) {
                    if (!expired && w.result_fd >= 0) {
                        // Its output ended first: take what it sent before it went.
                        while (w.result_fd >= 0) drain(w.result_fd, w.frames, false);
                        take_result(w);
                    }
                    if (!expired && w.output_fd >= 0 && w.busy) {
                        kill(w.pid, SIGKILL);  // its result pipe closed mid-job: it is going
                        while (w.output_fd >= 0) drain(w.output_fd, w.r.output, true);
                    }
                    const bool had_job = w.busy;
                    const size_t index = w.index;
                    reap(w);
                    if (had_job) {
                        ended.emplace_back(index, std::move(w.r));
                        --running;
                    }
                    it = workers.erase(it);
                } else {
                    ++it;
                }
            }
            fill();  // the freed workers start the next jobs while the parent reports the ended ones
            for (const auto& [i, r] : ended) on_done(i, r);
        }
    } catch (...) {
        for (auto& w : workers) {
            kill(w.pid, SIGKILL);
            w.busy = false;
            reap(w);
        }
        workers.clear();
        sigaction(SIGPIPE, &old_pipe, nullptr);
        throw;
    }
    sigaction(SIGPIPE, &old_pipe, nullptr);  // the idle workers wait for the next batch
}

void run_pool(size_t count, const PoolOptions& opts, const std::function<std::string(size_t)>& work,
              const std::function<void(size_t, const JobResult&)>& on_done, const std::function<bool()>& stop) {
    std::vector<std::string> jobs(count);
    for (size_t i = 0; i < count; ++i) jobs[i].assign(reinterpret_cast<const char*>(&i), sizeof i);
    WorkerPool pool(opts.jobs, [&work](const std::string& job) {
        size_t i = 0;
        std::memcpy(&i, job.data(), std::min(job.size(), sizeof i));
        return work(i);
    });
    pool.run(jobs, opts.timeout_s, on_done, stop);
}

}  // namespace bnsim
