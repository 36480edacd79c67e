#include "sim/runner/simulation_runner.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <numeric>
#include <set>

#include "configfile/config_error.h"
#include "kernels/trace_cache.h"
#include "sim/output/output_file.h"
#include "sim/output/error_line.h"
#include "sim/simulate/run_metrics.h"
#include "sim/runner/child_process.h"
#include "sim/runner/parallel_for.h"
#include "sim/report/provenance.h"
#include "sim/report/run_report.h"
#include "sim/runner/worker_pool.h"
#include "sim/schedule/schedule.h"
#include "sim/simulate/simulate.h"

namespace bnsim {

using json = nlohmann::ordered_json;

// Without a folder (none can be made) every child traces for itself. The folder is removed when
// this process exits or a signal ends it.
void share_traces_with_children() {
    static std::unique_ptr<TempDir> cache;
    if (cache || !trace_cache_dir().empty()) return;
    try {
        const char* base = std::getenv("TMPDIR");
        cache = std::make_unique<TempDir>(base && *base ? base : "/tmp", "bnsim-traces-");
        set_trace_cache_dir(cache->path());
    } catch (const std::exception&) {
    }
}

namespace {

// A kernel that traces through an outside program (the NKI frontend) whose trace is kept (on disk
// or in memory: kernels/trace_cache.h) is taken into this process's memory before the workers
// fork, so each inherits it instead of reading the image again. A kernel never traced is left to
// the workers, which trace in parallel where tracing here first would hold them all back. A
// config is looked at once for whether its kernel traces in place (every C++ kernel; then none of
// its requests needs a look: sensitivity sends one config 46 ways); the others, once per distinct
// request, `jobs` at a time. Nothing here fails: the workers report every error as always.
void keep_traced_kernels(const std::vector<SimRequest>& requests, int jobs) {
    static std::set<std::string> traced_in_place;  // configs whose kernel has no keep_traced
    // Loads each request of `todo` and remembers the configs whose kernel traces in place.
    auto look_at = [&](const std::vector<const SimRequest*>& todo) {
        std::vector<char> in_place(todo.size(), 0);
        parallel_for(todo.size(), jobs, [&](size_t i) {
            try {
                in_place[i] = !load_run_config(todo[i]->config, todo[i]->sets).keep_traced();
            } catch (...) {
                // the worker's own load reports it
            }
        });
        for (size_t i = 0; i < todo.size(); ++i)
            if (in_place[i]) traced_in_place.insert(todo[i]->config);
    };
    std::vector<const SimRequest*> firsts, rest;
    std::set<std::string> configs;
    std::set<std::pair<std::string, Overrides>> seen;  // the requests looked at
    for (const auto& r : requests)
        if (!traced_in_place.count(r.config) && configs.insert(r.config).second) {
            firsts.push_back(&r);
            seen.insert({r.config, r.sets});
        }
    look_at(firsts);
    for (const auto& r : requests)
        if (!traced_in_place.count(r.config) && seen.insert({r.config, r.sets}).second) rest.push_back(&r);
    look_at(rest);
}

}  // namespace

SimOutcome run_simulation_here(const SimRequest& r) {
    SimOutcome o;
    try {
        const RunConfig cfg = load_run_config(r.config, r.sets);
        const std::shared_ptr<const GeneratedKernel> kept = cfg.shared_kernel();
        const GeneratedKernel& k = *kept;
        SimOptions so;
        so.policy = cfg.schedule;
        so.dependents = k.dependents.get();
        const bool est = r.want == SimRequest::Want::estimate_report;
        if (est && cfg.schedule != SchedulePolicy::list)
            throw ConfigError("--estimate reports the list scheduler's timeline: it needs schedule: list, not " +
                              std::string(schedule_policy_name(cfg.schedule)));
        const SimResult res = est ? estimate(cfg.hw, k.trace) : simulate(cfg.hw, k.trace, so);
        if (r.want == SimRequest::Want::metric) {
            o.value = compute_metric(r.metric, cfg.hw, k, res);
        } else if (r.want == SimRequest::Want::latency) {
            o.value = report_ns(res.latency_ns);
        } else {
            o.report = build_run_report(cfg, k, res);
            o.report.estimate = est;
        }
        o.ok = true;
    } catch (...) {
        o.error = error_line(std::current_exception()).text;
    }
    return o;
}

namespace {

std::string request_text(const SimRequest& r) {
    json j;
    j["config"] = r.config;
    j["sets"] = json::array();
    for (const auto& [k, v] : r.sets) j["sets"].push_back({k, v});
    j["want"] = int(r.want);
    j["metric"] = r.metric;
    return j.dump();
}

SimRequest request_of(const std::string& text) {
    const json j = json::parse(text);
    SimRequest r;
    r.config = j.at("config").get<std::string>();
    for (const auto& kv : j.at("sets")) r.sets.emplace_back(kv.at(0).get<std::string>(), kv.at(1).get<std::string>());
    r.want = SimRequest::Want(j.at("want").get<int>());
    r.metric = j.at("metric").get<std::string>();
    return r;
}

// A worker's job: one request in, its outcome out.
std::string run_request(const std::string& text) {
    const SimRequest r = request_of(text);
    const SimOutcome o = run_simulation_here(r);
    json j;
    j["ok"] = o.ok;
    if (!o.ok) j["error"] = o.error;
    else if (r.want == SimRequest::Want::metric || r.want == SimRequest::Want::latency) j["value"] = o.value;
    else j["report"] = to_json(o.report);
    return j.dump();
}

// This process's workers, kept from batch to batch (a fit sends one per evaluation): each keeps
// the presets it parsed and the NKI kernels it traced or read (kernels/trace_cache.h). Made anew
// when a batch asks for another width; they end with the process.
WorkerPool& simulation_workers(int jobs) {
    static std::unique_ptr<WorkerPool> pool;
    if (!pool || pool->jobs() != std::max(1, jobs)) {
        pool.reset();
        pool = std::make_unique<WorkerPool>(jobs, run_request);
    }
    return *pool;
}

// run_simulations for requests that differ from each other, `texts` their request_text.
std::vector<SimOutcome> run_distinct(const std::vector<SimRequest>& requests, const std::vector<std::string>& texts,
                                     int jobs, double timeout_s) {
    std::vector<SimOutcome> out(requests.size());
    if (requests.empty()) return out;
    share_traces_with_children();
    WorkerPool& pool = simulation_workers(jobs);
    // Workers about to be forked inherit the kernels this process takes in first; workers that
    // live on from an earlier batch keep their own.
    if (pool.workers() == 0) keep_traced_kernels(requests, jobs);
    // The longest first, by what the same config took last time (unknown: in request order, after
    // the known ones): a fit's W2 row, last of its 108, otherwise ran alone at the end of every
    // evaluation while the other worker waited. Outcomes stay in request order.
    static std::map<std::string, double> seconds_of;  // by config, want and metric
    auto kind_of = [&](size_t i) {
        return requests[i].config + '\0' + std::to_string(int(requests[i].want)) + '\0' + requests[i].metric;
    };
    std::vector<double> expected(requests.size(), 0.0);
    for (size_t i = 0; i < requests.size(); ++i) {
        const auto it = seconds_of.find(kind_of(i));
        expected[i] = it == seconds_of.end() ? -1.0 : it->second;
    }
    std::vector<size_t> order(requests.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return expected[a] > expected[b]; });
    pool.run(texts, timeout_s, [&](size_t i, const JobResult& jr) {
        if (jr.kind == JobResult::Kind::done) seconds_of[kind_of(i)] = jr.seconds;
        SimOutcome& o = out[i];
        if (jr.kind == JobResult::Kind::timed_out) {
            o.error = "no result after " + std::to_string(int(timeout_s)) + " s (killed)";
            return;
        }
        if (jr.kind != JobResult::Kind::done) {
            o.error = "the simulation " + describe_crash(jr);
            return;
        }
        try {
            const json j = json::parse(jr.payload);  // ordered: keeps the report's order
            o.ok = j.at("ok").get<bool>();
            if (!o.ok) o.error = j.at("error").get<std::string>();
            else if (requests[i].want == SimRequest::Want::metric || requests[i].want == SimRequest::Want::latency)
                o.value = j.at("value").get<double>();
            else o.report = run_report_from_json(j.at("report"));
        } catch (const std::exception& e) {
            o.ok = false;
            o.error = std::string("unreadable result from the child: ") + e.what();
        }
    }, nullptr, order);
    return out;
}

}  // namespace

std::vector<SimOutcome> run_simulations(const std::vector<SimRequest>& requests, int jobs, double timeout_s) {
    // A request asked for twice (a fit's batch of vectors that share a point's run) is run once:
    // a simulation's outcome is a function of its request.
    std::map<std::string, size_t> distinct_of;  // a request's text: its index among the distinct
    std::vector<size_t> which(requests.size());
    std::vector<SimRequest> distinct;
    std::vector<std::string> texts;
    for (size_t i = 0; i < requests.size(); ++i) {
        std::string text = request_text(requests[i]);
        const auto [it, fresh] = distinct_of.emplace(text, distinct.size());
        if (fresh) {
            distinct.push_back(requests[i]);
            texts.push_back(std::move(text));
        }
        which[i] = it->second;
    }
    const std::vector<SimOutcome> ran = run_distinct(distinct, texts, jobs, timeout_s);
    std::vector<SimOutcome> out(requests.size());
    for (size_t i = 0; i < requests.size(); ++i) out[i] = ran[which[i]];
    return out;
}

}  // namespace bnsim
