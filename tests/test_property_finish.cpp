// Property (issue 8 item 5): no legal config deadlocks. The list scheduler plus the SystemC
// simulation, over hardware parameters drawn at random within the ranges the loader accepts and
// small random shapes, always finishes. Seeded, so a failure reproduces; each run is a forked
// child (SystemC elaborates once per process) with an alarm, so a hang fails instead of hanging.
//
// The ranges are the declared parameter table's (models/hw_params.h), which the loader enforces.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "configfile/config_error.h"
#include "models/hw_params.h"
#include "sim/config/run_config.h"
#include "sim/simulate/simulate.h"

using namespace bnsim;

namespace {

struct Range {
    std::string key;
    double lo, hi;
    bool integer;
};

// Every timing parameter of the declared table (models/hw_params.h) with its allowed range.
// Left out: SBUF capacity and partitions (they decide whether the kernel fits at all, not
// whether it finishes), the numerics path, the PE clock (no PE instruction here) and
// min_ii_cycles (no model reads it; the cost rows carry their own minimum).
const std::vector<Range> kRanges = [] {
    const std::set<std::string> skip = {"sbuf.partitions", "sbuf.bytes_per_partition", "sbuf.usable_bytes_per_partition",
                                        "sbuf.min_align_bytes", "engines.pe.clock_ghz",
                                        "numerics.scale_bias_operand_bits"};
    std::vector<Range> r;
    for (const HwParam& p : hw_params()) {
        if (skip.count(p.name) || p.name.find("min_ii_cycles") != std::string::npos) continue;
        r.push_back({p.name, p.min, p.max, p.kind != ParamKind::real});
    }
    return r;
}();

// Half the draws keep the preset's value, so each run moves a few parameters far and leaves the
// rest realistic; a moved value is an end of its range (1 in 8) or log-uniform inside it.
std::string draw(const Range& r, std::mt19937_64& rng) {
    std::uniform_real_distribution<double> u(0, 1);
    double v;
    const double p = u(rng);
    if (p < 1.0 / 16) v = r.lo;
    else if (p < 1.0 / 8) v = r.hi;
    else {
        const double lo = std::max(r.lo, r.integer ? 1.0 : 1e-3);
        v = std::exp(std::log(lo) + u(rng) * (std::log(r.hi) - std::log(lo)));
    }
    std::ostringstream o;
    if (r.integer) o << int64_t(std::llround(std::min(std::max(v, r.lo), r.hi)));
    else o << std::min(std::max(v, r.lo), r.hi);
    return o.str();
}

Overrides random_config(std::mt19937_64& rng) {
    Overrides o;
    std::uniform_int_distribution<int> coin(0, 1);
    for (const auto& r : kRanges)
        if (coin(rng)) o.push_back({"hardware." + r.key, draw(r, rng)});
    auto pick = [&](std::vector<int> v) { return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng)]; };
    o.push_back({"shape.B", std::to_string(pick({1, 2, 3, 4, 8}))});
    o.push_back({"shape.C", std::to_string(pick({1, 5, 64, 128, 130, 200}))});
    o.push_back({"shape.D", std::to_string(pick({1, 2}))});
    o.push_back({"shape.H", std::to_string(pick({1, 7, 16, 32}))});
    o.push_back({"shape.W", std::to_string(pick({1, 16, 33, 64}))});
    o.push_back({"lnc", std::to_string(pick({1, 2}))});
    o.push_back({"dtype", pick({0, 1}) ? "bfloat16" : "float32"});
    if (pick({0, 0, 1})) o.push_back({"schedule", "program_order"});
    return o;
}

std::string describe(const Overrides& o) {
    std::string s;
    for (const auto& [k, v] : o) s += " --set " + k + "=" + v;
    return s;
}

enum Outcome { kFinished = 0, kRejected = 3, kCannotFinish = 4, kOtherError = 5 };

// Runs the config in a forked child; returns its outcome, or -signal if it died (SIGALRM: hung).
int run_in_child(const Overrides& o) {
    std::fflush(nullptr);
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        alarm(60);
        int code = kOtherError;
        try {
            RunConfig cfg = load_run_config(std::string(BNSIM_SOURCE_DIR) + "/configs/default.yaml", o);
            GeneratedKernel k = cfg.generate();
            SimOptions opts;
            opts.policy = cfg.schedule;
            simulate(cfg.hw, k.trace, opts);
            code = kFinished;
        } catch (const ConfigError& e) {
            code = kRejected;  // a clean config error (the kernel does not fit, too few queues): allowed
        } catch (const SimulationError& e) {
            std::fprintf(stderr, "%s\n", e.what());
            code = kCannotFinish;
        } catch (const std::exception& e) {
            std::fprintf(stderr, "%s\n", e.what());
        }
        _exit(code);
    }
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    if (WIFSIGNALED(status)) return -WTERMSIG(status);
    return WEXITSTATUS(status);
}

}  // namespace

TEST_CASE("property: scheduler and simulation finish for random hardware parameters within their ranges and small shapes") {
    // BNSIM_PROPERTY_SEED / BNSIM_PROPERTY_RUNS explore further (e.g. in a loop over seeds).
    const char* seed = std::getenv("BNSIM_PROPERTY_SEED");
    const char* n = std::getenv("BNSIM_PROPERTY_RUNS");
    std::mt19937_64 rng(seed ? std::stoull(seed) : 20261130);
    const int runs = n ? std::stoi(n) : 80;
    int finished = 0;
    for (int i = 0; i < runs; ++i) {
        const Overrides o = random_config(rng);
        const int outcome = run_in_child(o);
        INFO("run " << i << ": bnsim run configs/default.yaml" << describe(o) << " -> outcome " << outcome);
        CHECK((outcome == kFinished || outcome == kRejected));
        if (outcome == kFinished) ++finished;
    }
    // Most draws are legal configs that run; rejections are the exception.
    CHECK(finished >= runs * 3 / 4);
}
