#pragma once
// Runs jobs in forked worker processes, at most `jobs` at a time, so a job that crashes, hangs
// or elaborates SystemC cannot touch the parent. A worker calls `work(job)` for one job after
// another and sends back the string each returns (each simulation in a fresh SystemC context);
// a job that crashes, throws or overruns its time ends its worker and only itself, and the next
// job starts in a new worker. The parent reports each job as it ends. Single-threaded (a poll
// loop), so forking is safe.
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace bnsim {

struct JobResult {
    enum class Kind { done, crashed, timed_out } kind = Kind::done;
    std::string payload;  // what work() returned (kind == done)
    std::string output;   // what the child printed on stdout/stderr (the tail, for diagnostics)
    int signal = 0;       // crashed: the signal, or 0 for a non-zero exit without a payload
    int exit_code = 0;
    double seconds = 0;   // done: from handing the job to a worker to its result
};

struct PoolOptions {
    int jobs = 1;
    double timeout_s = 0;  // per job; <= 0: none
};

// Workers that live across batches: a command that simulates batch after batch (a fit's every
// evaluation) forks its workers once, and each keeps what it loaded and traced (the configs'
// hardware presets, the NKI kernels: kernels/trace_cache.h) for the next batch. A job is a
// string the worker's `work` reads; a worker that crashes, throws or overruns is replaced by a
// new one forked from this process as it is then. The workers end with the pool.
class WorkerPool {
public:
    WorkerPool(int jobs, std::function<std::string(const std::string& job)> work);
    ~WorkerPool();
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;
    int jobs() const;
    size_t workers() const;  // live now (none before the first batch)

    // Runs every job, at most jobs() at a time, each with timeout_s (<= 0: none); calls
    // on_done(index, result) in this process, in completion order. Returns when every job has
    // ended or `stop()` returns true (checked between completions; the running workers are
    // killed).
    // `order`, if given, is the order in which the jobs are handed out (a permutation of their
    // indices: the longest first keeps a long job from running alone at the end of a batch).
    void run(const std::vector<std::string>& jobs, double timeout_s,
             const std::function<void(size_t, const JobResult&)>& on_done,
             const std::function<bool()>& stop = nullptr, const std::vector<size_t>& order = {});

private:
    struct State;
    std::unique_ptr<State> state_;
};

// One batch on a pool of its own: job i is work(i). Calls on_done(index, result) in the parent,
// in completion order. Returns when every job has ended or `stop()` returns true.
void run_pool(size_t count, const PoolOptions& opts, const std::function<std::string(size_t)>& work,
              const std::function<void(size_t, const JobResult&)>& on_done,
              const std::function<bool()>& stop = nullptr);

// Brief description, e.g. "killed by signal 11 (Segmentation fault)".
std::string describe_crash(const JobResult& r);

}  // namespace bnsim
