// bnsim calibrate: run the calibration microbenchmarks behind the public trn2 measurements and
// print the simulator's error on each (configs/calibration/measurements.yaml).
//
// SystemC elaborates once per process, so every row runs in a child process of this same
// executable: `bnsim calibrate --measure CONFIG --metric NAME` (hidden options) simulates one
// config and prints {"value": ...}; the parent collects, scores and reports.
#include <filesystem>
#include <iostream>
#include <set>

#include "models/hw_params.h"
#include "sim/config/run_config.h"
#include "sim/calibration/measurements.h"
#include "sim/simulate/run_metrics.h"
#include "sim/runner/child_process.h"
#include "sim/commands/command.h"
#include "sim/runner/simulation_runner.h"
#include "sim/commands/number_option.h"
#include "configfile/config_error.h"
#include "sim/calibration/calibration_report.h"
#include "sim/report/provenance.h"
#include "sim/simulate/simulate.h"

namespace bnsim {
namespace {

using json = nlohmann::ordered_json;

struct CalibrateOptions {
    std::string measurements;
    std::vector<std::string> sets;
    std::vector<std::string> only;
    bool json = false;
    double timeout_s = 120;
    int jobs = 2;
    // hidden: one measurement in this process
    std::string measure;
    std::string metric;
};

std::string default_measurements() {
    const std::string rel = "configs/calibration/measurements.yaml";
    std::error_code ec;
    if (std::filesystem::is_regular_file(rel, ec)) return rel;
    return std::string(BNSIM_CONFIG_DIR) + "/calibration/measurements.yaml";
}

// Child mode: simulate one config, print the metric.
void measure_one(const CalibrateOptions& o) {
    RunConfig cfg = load_run_config(o.measure, parse_overrides(o.sets));
    GeneratedKernel k = cfg.generate();
    SimOptions so;
    so.policy = cfg.schedule;
    const SimResult r = simulate(cfg.hw, k.trace, so);
    json out;
    out["metric"] = o.metric;
    out["value"] = compute_metric(o.metric, cfg.hw, k, r);
    std::cout << out.dump() << "\n";
}

bool selected(const Measurement& m, const std::vector<std::string>& only) {
    if (only.empty()) return true;
    for (const auto& p : only)
        if (m.id.rfind(p, 0) == 0) return true;
    return false;
}

// A row's --set arguments: its own `set:` keys first, the command line's after (so they win).
std::vector<std::string> row_sets(const Measurement& m, const std::vector<std::string>& cli_sets) {
    std::vector<std::string> all = m.sets;
    all.insert(all.end(), cli_sets.begin(), cli_sets.end());
    return all;
}

// Provenance of a calibration: every selected row's resolved config (with its and the command
// line's --set overrides), in order; a config that does not load enters by its path (its row
// reports the error).
Provenance calibration_provenance(const MeasurementSet& set, const std::vector<std::string>& cli_sets,
                                  const std::vector<std::string>& only) {
    std::string all;
    for (const auto& m : set.rows) {
        if (!selected(m, only)) continue;
        const Overrides overrides = parse_overrides(row_sets(m, cli_sets));
        for (const std::string* c : {&m.config, m.baseline ? &*m.baseline : nullptr}) {
            if (!c) continue;
            try {
                all += load_run_config(*c, overrides).resolved_json() + "\n";
            } catch (const std::exception&) {
                all += *c + "\n";
            }
        }
    }
    return provenance_of_text(all);
}

int calibrate(const CalibrateOptions& o) {
    const MeasurementSet set = load_measurements(o.measurements.empty() ? default_measurements() : o.measurements);
    // A bad --set is one config error up front (exit 2), not the same failure in every row.
    std::set<std::vector<std::string>> checked;
    for (const auto& m : set.rows) {
        if (!selected(m, o.only)) continue;
        std::vector<std::string> key = row_sets(m, o.sets);
        key.insert(key.begin(), m.config);
        if (!checked.insert(key).second) continue;
        try {
            load_run_config(m.config, parse_overrides(row_sets(m, o.sets)));
        } catch (const ConfigError& e) {
            if (m.sets.empty()) throw;
            throw ConfigError(set.file + ": row " + m.id + ": " + e.what());
        }
    }
    // Every row's simulations (and its baseline's) in one batch of child processes, then the rows
    // scored in order.
    std::vector<CalibrationRow> rows;
    std::vector<SimRequest> reqs;
    std::vector<std::pair<size_t, bool>> need;  // (row, is its baseline)
    for (const auto& m : set.rows) {
        if (!selected(m, o.only)) continue;
        CalibrationRow row;
        row.m = m;
        const Overrides sets = parse_overrides(row_sets(m, o.sets));
        if (m.metric == "hw_parameter") {
            try {
                row.simulated = hw_params().at(m.parameter).get(load_run_config(m.config, sets).hw);
                row.ran = true;
            } catch (const std::exception& e) {
                row.error = e.what();
            }
        } else {
            for (const std::string* c : {&m.config, m.baseline ? &*m.baseline : nullptr}) {
                if (!c) continue;
                SimRequest r;
                r.config = *c;
                r.sets = sets;
                r.want = SimRequest::Want::metric;
                r.metric = m.metric;
                need.emplace_back(rows.size(), c != &m.config);
                reqs.push_back(std::move(r));
            }
        }
        rows.push_back(std::move(row));
    }
    const std::vector<SimOutcome> runs = run_simulations(reqs, o.jobs, o.timeout_s);
    std::vector<bool> failed(rows.size(), false);
    for (size_t k = 0; k < runs.size(); ++k) {
        CalibrationRow& row = rows[need[k].first];
        if (failed[need[k].first]) continue;
        if (!runs[k].ok) {
            failed[need[k].first] = true;
            row.ran = false;
            row.error = reqs[k].config + ": " + runs[k].error;
            continue;
        }
        row.simulated += need[k].second ? -runs[k].value : runs[k].value;
        row.ran = true;
    }
    for (auto& row : rows) score(row, set.tolerance_for(row.m));
    if (rows.empty()) throw ConfigError("--only matched no measurement id");
    const Provenance prov = calibration_provenance(set, o.sets, o.only);
    if (o.json) {
        json report = calibration_json(set, rows);
        report["provenance"] = prov.json();
        std::cout << report.dump(2) << "\n";
    } else {
        print_calibration_table(set, rows, std::cout);
        std::cout << prov.line() << "\n";
    }
    return calibration_passes(rows) ? 0 : 1;
}

}  // namespace

void add_calibrate_command(CLI::App& app) {
    auto* cmd = app.add_subcommand(
        "calibrate", "run the calibration microbenchmarks and print the simulator's error on each public "
                     "trn2 measurement; exits 1 if any is outside the tolerance");
    auto o = std::make_shared<CalibrateOptions>();
    cmd->add_option("--measurements", o->measurements,
                    "measurements file (default configs/calibration/measurements.yaml)");
    cmd->add_option("--set", o->sets, "override a config key in every run: dotted.key=value (repeatable); "
                                      "hardware.* keys override the hardware preset, e.g. to try a parameter");
    cmd->add_option("--only", o->only, "run only the rows whose id starts with this (repeatable), e.g. M2");
    cmd->add_flag("--json", o->json, "print one JSON object instead of the table");
    add_jobs_option(*cmd, "-j,--jobs", o->jobs, "child processes run at once");
    add_real_option(*cmd, "--timeout", o->timeout_s, kTimeoutRange,
                    "seconds a row's run may take before it is killed and reported");
    // Hidden: the per-row child process.
    cmd->add_option("--measure", o->measure, "simulate one run config and print one metric")->group("");
    cmd->add_option("--metric", o->metric, "the metric --measure prints")->group("");
    cmd->callback([o]() {
        if (!o->measure.empty()) {
            if (o->metric.empty()) throw ConfigError("--measure needs --metric");
            measure_one(*o);
            return;
        }
        const int rc = calibrate(*o);
        if (rc != 0) throw CLI::RuntimeError(rc);
    });
}

}  // namespace bnsim
