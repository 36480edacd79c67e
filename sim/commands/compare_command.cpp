// bnsim compare MEASURED [--against CONFIG] [--json] [--out DIR]: how far bnsim's predictions are
// from measured trn2 runs (a measured-runs CSV, a neuron-bench latency table or the calibration
// data set), or from a neuron-profile / Neuron Explorer capture.
#include <cmath>
#include <filesystem>
#include <iostream>
#include <optional>
#include <unistd.h>

#include "sim/runner/child_process.h"
#include "sim/commands/command.h"
#include "sim/commands/number_option.h"
#include "sim/output/output_file.h"
#include "sim/compare/compare.h"
#include "configfile/config_error.h"
#include "sim/measured/import_error.h"
#include "sim/compare/compare_report.h"
#include "sim/report/provenance.h"
#include "sim/compare/predict.h"
#include "sim/sensitivity/latency_band.h"

namespace bnsim {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

std::string default_run_config() {
    std::error_code ec;
    if (fs::is_regular_file("configs/default.yaml", ec)) return "configs/default.yaml";
    return std::string(BNSIM_CONFIG_DIR) + "/default.yaml";
}

namespace {

struct CompareOptions {
    std::string measured;
    PredictOptions predict;
    bool json = false;
    std::string out;
    double tolerance_pct = 0;  // > 0: exit 1 if any point's |error| exceeds it
    bool bands = false;        // each latency point's uncertainty band, and whether it holds the measurement
};

// run --uncertainty's joint band for each predicted latency point (sim/sensitivity/latency_band.h):
// a profile's total_time point takes the band of the kernel plus launch.profile_window_ns (run
// --uncertainty --as-profile), each sample with its own window.
void add_bands(const MeasuredSet& set, const CompareOptions& o, PointsComparison& c) {
    for (const MeasuredPoint& p : set.points) {
        const bool profile = p.metric == "profile_total_time_ns";
        if (p.metric != "latency_ns" && !profile) continue;
        PointComparison* pc = nullptr;
        for (auto& q : c.points)
            if (q.id == p.id && q.line == p.line) pc = &q;
        if (!pc) continue;  // not predicted
        const std::string config = point_config(p, o.predict);
        const Overrides sets = point_overrides(p, o.predict);
        const RunConfig cfg = load_run_config(config, sets);
        const BandOf of = profile ? BandOf::profile_total_time : BandOf::latency;
        LatencyBand band = latency_band(cfg, config, sets, pc->predicted, o.predict.jobs, o.predict.timeout_s, false, of);
        add_joint_band(band, cfg, config, sets, pc->predicted, o.predict.jobs, o.predict.timeout_s);
        pc->band_low_ns = band.joint->widened_p5_ns;
        pc->band_high_ns = band.joint->widened_p95_ns;
        pc->band_contains = p.measured >= *pc->band_low_ns && p.measured <= *pc->band_high_ns;
    }
}

// Simulates the config once, in a child, as a profile; reads it back through the importer.
Profile simulated_profile_of(const CompareOptions& o) {
    // Removed on every way out, a signal included.
    const char* tmp = std::getenv("TMPDIR");
    TempDir temp(tmp && *tmp ? tmp : "/tmp", "bnsim-compare-");
    const std::string dir = temp.path();  // the child swaps its profile folder in here
    std::vector<std::string> args{"run", o.predict.against, "--json", "--profile-out", dir};
    for (const auto& s : o.predict.sets) args.insert(args.end(), {"--set", s});
    const ChildResult c = run_child(self_executable(), args, o.predict.timeout_s);
    Profile p;
    std::string err;
    if (c.exit_code == 0) p = read_profile(dir);
    else err = c.timed_out ? "timed out" : c.err;
    if (!err.empty()) throw std::runtime_error("simulating " + o.predict.against + ": " + err);
    return p;
}

int compare(const CompareOptions& o) {
    std::optional<OutputDir> out_dir;  // checked before any simulation runs
    if (!o.out.empty()) out_dir.emplace("--out", o.out);
    CompareReport report;
    bool pass = true;
    // A calibration data set is YAML by its extension (read_measured's rule); anything else is a
    // profile if it looks like one.
    const std::string ext = fs::path(o.measured).extension().string();
    const bool calibration_yaml = ext == ".yaml" || ext == ".yml";
    if (!calibration_yaml && looks_like_profile(o.measured)) {
        const Profile measured = read_profile(o.measured);
        load_run_config(o.predict.against, parse_overrides(o.predict.sets));  // bad config: exit 2 up front
        report.profile = compare_profiles(measured, simulated_profile_of(o));
        report.profile->against = o.predict.against;
    } else {
        const MeasuredSet set = read_measured(o.measured);
        check_points(set, o.predict);
        const auto pred = predict(set, o.predict);
        PointsComparison& c = report.points.emplace(compare_points(set, pred));
        c.against = o.predict.against;
        if (o.bands) add_bands(set, o, c);
        if (!c.failed.empty()) pass = false;
        if (o.tolerance_pct > 0) {
            for (const auto& p : c.points)
                if (std::fabs(p.error_pct) > o.tolerance_pct) pass = false;
            c.tolerance_pct = o.tolerance_pct;
        }
        c.pass = pass;
    }
    // The config the points modify, as every JSON output and report names its build and config.
    const Provenance prov = provenance_of(load_run_config(o.predict.against, parse_overrides(o.predict.sets)));
    report.provenance = prov.json();
    if (out_dir) {
        out_dir->write("compare.html", [&](std::ostream& f) { f << compare_html(report); });
        out_dir->write("compare.json", [&](std::ostream& f) { f << to_json(report).dump(2) << "\n"; });
    }
    if (o.json) {
        std::cout << to_json(report).dump(2) << "\n";
    } else {
        print_compare_report(report, std::cout);
        std::cout << prov.line() << "\n";
    }
    return pass ? 0 : 1;
}

}  // namespace

void add_compare_command(CLI::App& app) {
    auto* cmd = app.add_subcommand(
        "compare", "compare bnsim's predictions with measured trn2 runs (CSV, neuron-bench latency table, "
                   "calibration YAML) or a profile (neuron-profile summary-text / JSON, Neuron Explorer tables)");
    auto o = std::make_shared<CompareOptions>();
    cmd->add_option("measured", o->measured, "measured data file (or a directory of profile tables)")->required();
    cmd->add_option("--against", o->predict.against, "run config the points modify (default configs/default.yaml)");
    cmd->add_option("--set", o->predict.sets, "override a config key in every run: dotted.key=value (repeatable); "
                                              "e.g. --set hardware=fitted.yaml");
    cmd->add_flag("--json", o->json, "print one JSON object instead of the table");
    cmd->add_flag("--bands", o->bands,
                  "for each latency point, its uncertainty band (run --uncertainty's joint 90% band with the model's own "
                  "error) and whether it holds the measured value");
    cmd->add_option("--out", o->out, "write compare.html (SVG charts) and compare.json into this directory");
    add_jobs_option(*cmd, "-j,--jobs", o->predict.jobs, "child processes run at once");
    add_real_option(*cmd, "--timeout", o->predict.timeout_s, kTimeoutRange, "seconds a point's run may take");
    add_real_option(*cmd, "--tolerance", o->tolerance_pct, {0, 1000, true, "a percentage"},
                    "exit 1 if any point's error exceeds this many percent");
    cmd->callback([o]() {
        if (o->predict.against.empty()) o->predict.against = default_run_config();
        const int rc = compare(*o);
        if (rc != 0) throw CLI::RuntimeError(rc);
    });
}

}  // namespace bnsim
