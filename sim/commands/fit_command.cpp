// bnsim fit MEASURED [--against CONFIG] --params LIST [--out hw.yaml]: fits hardware parameters
// to measured points within their allowed ranges and writes a hardware preset with the fitted
// values and their provenance.
#include <iomanip>
#include <filesystem>
#include <iostream>
#include <optional>

#include "configfile/number_text.h"
#include "sim/commands/command.h"
#include "sim/commands/number_option.h"
#include "sim/output/output_file.h"
#include "configfile/config_error.h"
#include "sim/fit/fit.h"
#include "sim/measured/import_error.h"
#include "sim/report/provenance.h"
#include "sim/report/decimal_text.h"

namespace bnsim {

namespace {

using json = nlohmann::ordered_json;

struct FitCommandOptions {
    std::string measured;
    PredictOptions predict;
    std::vector<std::string> params;
    std::string out;
    bool json = false;
    FitOptions fit;
};

// Two spellings of one file (configs/hw/trn2.yaml, configs/calibration/../hw/trn2.yaml).
bool same_file(const std::string& a, const std::string& b) {
    std::error_code ea, eb;
    const auto ca = std::filesystem::weakly_canonical(a, ea), cb = std::filesystem::weakly_canonical(b, eb);
    return ea || eb ? a == b : ca == cb;
}

// The hardware every point runs with (they must share one preset: the fit writes one).
RunConfig shared_hw_config(const MeasuredSet& set, const PredictOptions& po) {
    std::optional<RunConfig> first;
    for (const auto& p : set.points) {
        RunConfig c = load_run_config(point_config(p, po), point_overrides(p, po));
        if (!first) first = std::move(c);
        else if (!same_file(c.hw_file, first->hw_file))
            throw ConfigError(set.file + ": points run on different hardware presets (" + first->hw_file + ", " +
                              c.hw_file + "); fit one preset at a time");
    }
    if (!first) throw ConfigError(set.file + ": no measured point");
    return *first;
}

void run_fit(const FitCommandOptions& o) {
    std::optional<OutputFile> out;  // checked before any simulation runs
    if (!o.out.empty()) out.emplace("--out", o.out, o.json);
    const MeasuredSet set = read_measured(o.measured);
    check_points(set, o.predict);
    const RunConfig base = shared_hw_config(set, o.predict);
    const std::string& hw_file = base.hw_file;
    const auto params = parse_fit_params(o.params, base.hw);
    const FitResult r = fit_parameters(set, params, bnsim_point_model(set, o.predict, params), o.fit);
    if (out) write_fitted_hw(hw_file, *out, r, o.measured);
    json j;
    j["measured_file"] = o.measured;
    j["hardware_file"] = hw_file;
    j["evaluations"] = r.evaluations;
    j["stop_reason"] = r.stop_reason;
    j["method"] = r.method;
    j["interval_tolerance_pct"] = r.interval_tolerance_pct;
    json ps = json::array();
    for (size_t i = 0; i < r.params.size(); ++i) {
        const auto& p = r.params[i];
        const char* kind = p.kind == FitParam::Kind::boolean ? "boolean" : p.kind == FitParam::Kind::integer ? "integer" : "real";
        ps.push_back({{"name", p.name}, {"kind", kind}, {"low", p.lo}, {"high", p.hi}, {"bounds_from", p.bounds_from},
                      {"start", p.start}, {"value", p.value},
                      {"at_bound", p.at_bound.empty() ? json(nullptr) : json(p.at_bound)},
                      {"pull", p.pull.empty() ? json(nullptr) : json(p.pull)},
                      {"interval", {p.interval_lo, p.interval_hi}},
                      {"identifiable", r.identifiability[i].identifiable}, {"why", r.identifiability[i].why},
                      {"sensitivity_pct", r.identifiability[i].sensitivity_pct}});
    }
    j["params"] = ps;
    j["mape_before_pct"] = r.mape_before;
    j["mape_after_pct"] = r.mape_after;
    j["rms_before_pct"] = r.rms_before;
    j["rms_after_pct"] = r.rms_after;
    json points = json::array();
    for (const auto& p : r.points)
        points.push_back({{"id", p.id}, {"metric", p.metric}, {"measured", p.measured}, {"before", p.before}, {"after", p.after}});
    j["points"] = points;
    if (!o.out.empty()) j["out"] = o.out;
    const Provenance prov = provenance_of(base);
    j["provenance"] = prov.json();
    if (o.json) {
        std::cout << j.dump(2) << "\n";
        return;
    }
    std::cout << "fit " << o.measured << ": " << set.points.size() << " points, " << r.params.size()
              << " parameters, " << r.evaluations << " evaluations (" << r.stop_reason << ")\n";
    std::cout << std::left << std::setw(28) << "parameter" << std::setw(24) << "range" << std::right << std::setw(12)
              << "start" << std::setw(12) << "fitted" << "  " << std::left << std::setw(26)
              << ("interval (+" + short_number(r.interval_tolerance_pct) + " pt)") << "identifiable\n";
    for (size_t i = 0; i < r.params.size(); ++i) {
        const FitParam& p = r.params[i];
        const Identifiability& id = r.identifiability[i];
        std::ostringstream range;
        range << "[" << p.lo << ", " << p.hi << "]";
        std::ostringstream interval;
        interval.precision(6);
        interval << "[" << p.interval_lo << ", " << p.interval_hi << "]";
        std::cout << std::left << std::setw(28) << p.name << std::setw(24) << range.str() << std::right << std::setw(12)
                  << p.start << std::setw(12) << std::setprecision(6) << p.value << "  " << std::left << std::setw(26)
                  << interval.str() << (id.identifiable ? std::string("yes") : "NO: " + id.why) << "\n";
        if (!p.at_bound.empty())
            std::cout << "  on its " << p.at_bound << " bound"
                      << (!p.pull.empty() ? "; the data pull " + p.pull + ": widen it with --params " + p.name + "=LO:HI"
                                          : std::string())
                      << "\n";
    }
    std::cout << "\n" << std::left << std::setw(34) << "point" << std::right << std::setw(14) << "measured" << std::setw(14)
              << "before" << std::setw(9) << "error" << std::setw(14) << "after" << std::setw(9) << "error" << "\n";
    for (const auto& p : r.points) {
        const double m = p.measured, b = p.before, a = p.after;
        auto err = [&](double v) { return signed_percent((v - m) / m * 100); };
        std::cout << std::left << std::setw(34) << p.id << std::right << std::setprecision(6) << std::setw(14) << m
                  << std::setw(14) << b << std::setw(9) << err(b) << std::setw(14) << a << std::setw(9) << err(a) << "\n";
    }
    std::cout << std::fixed << std::setprecision(2) << "error       MAPE " << r.mape_before << "% -> " << r.mape_after
              << "%, RMS " << r.rms_before << "% -> " << r.rms_after << "%\n";
    if (!o.out.empty())
        std::cout << "wrote " << o.out << " (compare: bnsim compare " << o.measured << " --set hardware=" << o.out << ")\n";
    std::cout << prov.line() << "\n";
}

}  // namespace

void add_fit_command(CLI::App& app) {
    auto* cmd = app.add_subcommand("fit", "fit hardware parameters (real, integer or flags) to measured runs within their "
                                          "ranges - a global Halton sample, then local searches - and write a hardware "
                                          "preset with provenance");
    auto o = std::make_shared<FitCommandOptions>();
    cmd->add_option("measured", o->measured, "measured data (runs CSV, latency table or calibration YAML)")->required();
    cmd->add_option("--against", o->predict.against, "run config the points modify (default configs/default.yaml)");
    cmd->add_option("--params", o->params, "hardware parameters to fit: NAME or NAME=LO:HI, comma-separated or repeated")
        ->required();
    cmd->add_option("--out", o->out, "write the hardware preset with the fitted values here");
    cmd->add_option("--set", o->predict.sets, "override a config key in every run: dotted.key=value (repeatable)");
    cmd->add_flag("--json", o->json, "print one JSON object instead of the table");
    add_jobs_option(*cmd, "-j,--jobs", o->predict.jobs, "child processes run at once");
    add_int_option(*cmd, "--max-evals", o->fit.max_evals, 1, 100000,
                   "objective evaluations at most (default: 12 n + 8 global points, then 3 local searches of 20 n + 10, for n parameters)");
    cmd->callback([o]() {
        if (o->predict.against.empty()) o->predict.against = default_run_config();
        run_fit(*o);
    });
}

}  // namespace bnsim
