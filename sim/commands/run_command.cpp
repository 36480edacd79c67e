// bnsim run: schedule the kernel's trace, execute it on the SystemC models and report the
// predicted latency, per-phase bounds, unit utilization and HBM traffic. With --estimate, the
// list scheduler's own timeline stands in for the SystemC run (same report, marked).
#include <functional>
#include <future>
#include <cmath>
#include <iostream>
#include <optional>

#include "sim/config/run_config.h"
#include "sim/commands/command.h"
#include "sim/output/output_file.h"
#include "configfile/config_error.h"
#include "sim/report/provenance.h"
#include "sim/measured/profile_report.h"
#include "sim/report/run_report.h"
#include "sim/report/timeline.h"
#include "sim/schedule/schedule.h"
#include "sim/runner/simulation_runner.h"
#include "sim/sensitivity/latency_band.h"
#include "sim/tune/tune.h"
#include "sim/runner/short_lived_heap.h"
#include "sim/simulate/simulate.h"

namespace bnsim {

namespace {

// The run's trace, never freed: the process ends with the run, and handing its tens of thousands
// of instructions (three vectors each) back to the allocator one by one cost 14M instructions
// at C=512 (as much as loading the config). Reachable from this static, so a leak checker does
// not count it; a second run in one process frees the first's.
GeneratedKernel& keep_until_exit(GeneratedKernel k) {
    static GeneratedKernel* kept = nullptr;
    delete kept;
    kept = new GeneratedKernel(std::move(k));
    return *kept;
}

}  // namespace

void add_run_command(CLI::App& app) {
    auto* cmd = app.add_subcommand("run", "simulate the kernel's timing and report latency, bounds and utilization");
    auto opts = std::make_shared<ConfigOptions>();
    auto timeline = std::make_shared<std::string>();
    auto estimate_only = std::make_shared<bool>(false);
    auto profile_out = std::make_shared<std::string>();
    auto uncertainty = std::make_shared<bool>(false);
    auto as_profile = std::make_shared<bool>(false);
    opts->add_to(*cmd);
    auto* timeline_opt = cmd->add_option("--timeline", *timeline,
                                         "write a Chrome trace-event JSON timeline (open in ui.perfetto.dev; "
                                         "- for standard output, the text report then goes to standard error)");
    cmd->add_flag("--estimate", *estimate_only,
                  "report the list scheduler's own timeline instead of running the SystemC models (screening)");
    auto* profile_opt = cmd->add_option("--profile-out", *profile_out,
                                        "write the run as Neuron profiler tables (summary, instruction, dma_packet, "
                                        "metadata; CSV and profile.json) into this directory, with is_simulation: true");
    cmd->add_flag("--uncertainty", *uncertainty,
                  "also report a [low, high] latency band from the estimated parameters' ranges (one child run "
                  "per range end) and which parameter drives each end");
    cmd->add_flag("--as-profile", *as_profile,
                  "with --uncertainty: the band of a neuron-profile total_time (the kernel + launch.profile_window_ns, "
                  "the profiled run's pre- and postamble) instead of a benchmark latency (the kernel + launch.fixed_ns)");
    cmd->callback([opts, timeline, timeline_opt, estimate_only, profile_out, profile_opt, uncertainty, as_profile]() {
        if (*as_profile && !*uncertainty) throw ConfigError("--as-profile: it frames the --uncertainty band; add --uncertainty");
        prepare_short_lived_heap();  // the process ends with the run: fewer page faults
        std::optional<OutputFile> out;
        if (timeline_opt->count()) out.emplace("--timeline", *timeline, opts->json);
        // The profile folder appears whole at the end, or not at all.
        std::optional<StagedDir> profile_dir;
        if (profile_opt->count()) profile_dir.emplace("--profile-out", *profile_out, profile_dir_files());
        RunConfig cfg = load_run_config(opts->config, parse_overrides(opts->sets));
        if (*estimate_only && cfg.schedule != SchedulePolicy::list)
            throw ConfigError("--estimate reports the list scheduler's timeline: it needs schedule: list, not " +
                              std::string(schedule_policy_name(cfg.schedule)));
        // The band's workers inherit this process's kernel; the traces they make (a compiler
        // estimate's other values) go to a shared folder, made once for all of them.
        if (*uncertainty) share_traces_with_children();
        const GeneratedKernel& k = keep_until_exit(cfg.generate());
        // The report's trace-only figures are independent of the run: priced on a second core
        // while this one simulates (about 4% of a C=512 run's instructions). Where no thread can
        // be started (EAGAIN), libstdc++ runs them here when the report asks instead.
        auto figures = std::async(std::launch::async | std::launch::deferred, trace_figures, std::cref(cfg.hw),
                                  std::cref(k.trace));
        SimOptions so;
        so.policy = cfg.schedule;
        SimResult r = *estimate_only ? estimate(cfg.hw, k.trace) : simulate(cfg.hw, k.trace, so);
        const Provenance prov = provenance_of(cfg);
        if (out) out->write([&](std::ostream& o) { write_timeline(o, k.trace, cfg.hw, r, prov); });
        if (profile_dir) {
            write_profile_dir(simulated_profile(cfg, k, r), profile_dir->files());
            profile_dir->commit();
        }
        RunReport run = build_run_report(cfg, k, r, *figures.get());
        run.estimate = *estimate_only;
        nlohmann::ordered_json report = to_json(run);
        std::optional<LatencyBand> band;
        if (*uncertainty) {
            const BandOf of = *as_profile ? BandOf::profile_total_time : BandOf::latency;
            const double centre = band_figure(of, cfg.hw, run.kernel_ns, run.latency_ns);
            band = latency_band(cfg, opts->config, parse_overrides(opts->sets), centre, 2, 300, *estimate_only, of);
            add_joint_band(*band, cfg, opts->config, parse_overrides(opts->sets), centre, 2);
        }
        // Whether the kernel's own choice stays the best under the joint uncertainty: bnsim tune's
        // answer over the kernel's decisions (none for a kernel that makes none).
        if (*uncertainty && has_tune_axes(cfg)) {
            TuneOptions t;
            t.config = opts->config;
            t.sets = opts->sets;
            const TuneReport tr = tune(t);
            band->choice = ChoiceRobustness{std::round(tr.choice_best_probability * 10000) / 10000, tr.best_most_often,
                                            tr.samples};
        }
        if (band) report["uncertainty"] = to_json(*band);
        report["provenance"] = prov.json();
        if (opts->json) {
            std::cout << report.dump(2) << "\n";
            return;
        }
        std::ostream& text = out && out->is_stdout() ? std::cerr : std::cout;
        if (*estimate_only)
            text << "mode        estimate: the list scheduler's timeline (no SystemC run, no HBM contention)\n";
        print_run_report(run, text);
        if (band) print_latency_band(*band, text);
        text << prov.line() << "\n";
    });
}

}  // namespace bnsim
