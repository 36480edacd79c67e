// bnsim sweep: run every point of a sweep file, each in its own child process, -j at a time,
// streaming results to DIR/results.{csv,jsonl}; then DIR/summary.json and DIR/report.html.
#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <iostream>
#include <thread>

#include "sim/commands/command.h"
#include "sim/commands/number_option.h"
#include "configfile/config_error.h"
#include "sim/config/run_config.h"
#include "sim/sweep/point_runner.h"
#include "sim/sweep/progress.h"
#include "sim/sweep/results_dir.h"
#include "sim/sweep/sweep_outputs.h"
#include "sim/sweep/sweep_summary.h"
#include "sim/runner/parallel_for.h"
#include "sim/runner/worker_pool.h"

namespace bnsim {

namespace {

volatile std::sig_atomic_t g_interrupted = 0;
extern "C" void on_interrupt(int) { g_interrupted = 1; }

// "i/N" with 0 <= i < N.
std::pair<size_t, size_t> parse_shard(const std::string& s) {
    const auto slash = s.find('/');
    try {
        if (slash != std::string::npos) {
            size_t a = 0, b = 0;
            const long i = std::stol(s.substr(0, slash), &a), n = std::stol(s.substr(slash + 1), &b);
            if (a == slash && b == s.size() - slash - 1 && n >= 1 && i >= 0 && i < n) return {size_t(i), size_t(n)};
        }
    } catch (...) {
    }
    throw ConfigError("--shard " + s + ": expected i/N with 0 <= i < N (e.g. --shard 0/4)");
}

SweepRecord failure_record(const SweepPoint& p, const JobResult& r) {
    return failed_record(p, r.kind == JobResult::Kind::timed_out ? "timeout" : "crashed", describe_crash(r));
}

}  // namespace

void add_sweep_command(CLI::App& app) {
    auto* cmd = app.add_subcommand("sweep", "run a grid of configs, each in its own process, and summarize them");
    struct Opts {
        std::string file, out, shard;
        int jobs = 0;
        double timeout = 0;
        bool resume = false;
    };
    auto o = std::make_shared<Opts>();
    cmd->add_option("sweep", o->file, "sweep file (YAML): base, grid, points")->required();
    add_jobs_option(*cmd, "-j,--jobs", o->jobs, "points run at a time");
    cmd->add_option("--out", o->out, "output folder (default: SWEEP's name without .yaml, plus .out)");
    cmd->add_flag("--resume", o->resume, "continue a sweep in --out, skipping the points already there");
    cmd->add_option("--shard", o->shard, "run only the i-th of N disjoint slices: i/N");
    add_real_option(*cmd, "--timeout", o->timeout, kTimeoutRange,
                    "seconds per point (default: the sweep file's timeout, else 300)");
    cmd->callback([o]() {
        const SweepSpec spec = load_sweep_spec(o->file);
        const auto [shard_i, shard_n] = o->shard.empty() ? std::pair<size_t, size_t>{0, 1} : parse_shard(o->shard);
        // The base config names the kernel, whose decisions shape the sweep.
        const std::string base = (std::filesystem::path(spec.file).parent_path() / spec.base).lexically_normal().string();
        RunConfig base_cfg;
        try {
            base_cfg = load_run_config(base);
        } catch (const ConfigError& e) {
            throw ConfigError(spec.file + ": base " + spec.base + ": " + e.what());
        }
        const SweepKernel kernel = sweep_kernel(base_cfg.kernel);
        const SweepPlan plan = expand_sweep(spec, kernel);
        // A key or value the run config rejects is bad input for the whole sweep, found now: the
        // points are checked on the pool's threads (this process forks no worker before), and the
        // first point in plan order that fails is the error (parallel_for).
        parallel_for(plan.points.size(), o->jobs, [&](size_t i) {
            const SweepPoint& p = plan.points[i];
            try {
                check_point_config(plan.base, p.params, spec.key_origin);
            } catch (const ConfigError& e) {
                // A message that already points into the sweep file says where; others get the point.
                const std::string m = e.what();
                if (m.rfind(spec.file + ":", 0) == 0) throw;
                throw ConfigError(spec.file + ": point " + params_label(p.params) + ": " + m);
            }
        });
        std::vector<const SweepPoint*> mine;
        for (size_t i = 0; i < plan.points.size(); ++i)
            if (i % shard_n == shard_i) mine.push_back(&plan.points[i]);
        const std::string shard = o->shard.empty() ? "all" : std::to_string(shard_i) + "/" + std::to_string(shard_n);
        std::string out = o->out;
        if (out.empty()) out = std::filesystem::path(spec.file).stem().string() + ".out";
        ResultsDir dir(out, sweep_meta(spec, plan, kernel, shard), o->resume);

        std::vector<const SweepPoint*> todo;
        for (const auto* p : mine)
            if (!dir.records().count(p->id)) todo.push_back(p);
        const int jobs = o->jobs;  // defaults to the machine's cores (add_jobs_option)
        const double timeout = o->timeout > 0 ? o->timeout : spec.timeout_s;
        const bool live = isatty(STDOUT_FILENO);
        std::cout << "sweep " << spec.file << ": " << plan.points.size() << " points"
                  << (shard == "all" ? "" : ", shard " + shard + ": " + std::to_string(mine.size()))
                  << (mine.size() > todo.size() ? ", " + std::to_string(mine.size() - todo.size()) + " already done" : "")
                  << ", " << jobs << " at a time, into " << out << "\n" << std::flush;

        Progress progress(std::cout, live, mine.size(), mine.size() - todo.size());
        g_interrupted = 0;
        auto old_int = std::signal(SIGINT, on_interrupt);
        auto old_term = std::signal(SIGTERM, on_interrupt);
        PoolOptions po;
        po.jobs = jobs;
        po.timeout_s = timeout;
        run_pool(
            todo.size(), po,
            [&](size_t i) { return to_json(run_point(plan.base, *todo[i])).dump(); },
            [&](size_t i, const JobResult& r) {
                SweepRecord rec;
                bool read_back = false;
                if (r.kind == JobResult::Kind::done) {
                    try {  // a child's record that does not read back counts as its crash
                        rec = sweep_record_from_json(nlohmann::ordered_json::parse(r.payload), "point " + todo[i]->id);
                        read_back = true;
                    } catch (const std::exception&) {
                        JobResult bad = r;
                        bad.kind = JobResult::Kind::crashed;
                        rec = failure_record(*todo[i], bad);
                    }
                } else {
                    rec = failure_record(*todo[i], r);
                }
                // A record read back writes as the child wrote it (to_json reads back byte for byte).
                if (read_back)
                    dir.append(rec, r.payload);
                else
                    dir.append(rec);
                progress.point_done(rec, params_label(todo[i]->params));
            },
            [] { return g_interrupted != 0; });
        progress.finish();
        std::signal(SIGINT, old_int);
        std::signal(SIGTERM, old_term);
        if (g_interrupted) {
            std::cout << "interrupted: " << dir.records().size() << " of " << mine.size()
                      << " points saved in " << out << "; run again with --resume to finish\n";
            std::exit(130);
        }
        dir.finalize();
        const auto summary = write_sweep_answers(out, dir.meta(), dir.records());
        std::cout << "\n";
        print_sweep_summary(summary, std::cout);
        std::cout << "\nresults: " << out << "/results.csv, results.jsonl, summary.json, report.html\n";
    });
}

}  // namespace bnsim
