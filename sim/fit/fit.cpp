#include "sim/fit/fit.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <fstream>
#include <limits>
#include <sstream>

#include <nlopt.h>
#include <yaml-cpp/yaml.h>

#include "configfile/input_file.h"
#include "configfile/number_text.h"
#include "models/hw_params.h"
#include "configfile/closest_names.h"
#include "sim/output/output_file.h"
#include "configfile/config_error.h"

namespace bnsim {

using json = nlohmann::ordered_json;

namespace {

struct Errors {
    double mape = 0, rms = 0;
};

Errors errors_of(const MeasuredSet& set, const std::vector<double>& pred) {
    Errors e;
    for (size_t i = 0; i < pred.size(); ++i) {
        const double r = (pred[i] - set.points[i].measured) / set.points[i].measured;
        e.mape += std::fabs(r);
        e.rms += r * r;
    }
    const double n = double(std::max<size_t>(1, pred.size()));
    e.mape = e.mape / n * 100;
    e.rms = std::sqrt(e.rms / n) * 100;
    return e;
}

struct Problem {
    const MeasuredSet* set;
    const std::vector<FitParam>* params;
    const PointModel* model;
    int evals = 0;
    std::string failure;
};

std::vector<double> denormalise(const std::vector<FitParam>& ps, const double* x) {
    std::vector<double> v(ps.size());
    for (size_t i = 0; i < ps.size(); ++i) {
        v[i] = ps[i].lo + x[i] * (ps[i].hi - ps[i].lo);
        if (ps[i].integer) v[i] = std::round(v[i]);  // the table refuses a fractional count
    }
    return v;
}

double objective(unsigned n, const double* x, double* grad, void* data) {
    (void)n;
    (void)grad;  // derivative-free
    auto* p = static_cast<Problem*>(data);
    ++p->evals;
    try {
        const auto pred = (*p->model)(denormalise(*p->params, x));
        const Errors e = errors_of(*p->set, pred);
        return e.rms * e.rms;
    } catch (const std::exception& ex) {
        p->failure = ex.what();
        return std::numeric_limits<double>::max();
    }
}

const char* nlopt_reason(nlopt_result r) {
    switch (r) {
    case NLOPT_SUCCESS: return "converged";
    case NLOPT_STOPVAL_REACHED: return "objective reached the stop value";
    case NLOPT_FTOL_REACHED: return "objective tolerance reached";
    case NLOPT_XTOL_REACHED: return "parameter tolerance reached";
    case NLOPT_MAXEVAL_REACHED: return "evaluation budget spent";
    case NLOPT_MAXTIME_REACHED: return "time budget spent";
    case NLOPT_ROUNDOFF_LIMITED: return "limited by round-off";
    default: return "optimizer failed";
    }
}

}  // namespace

FitResult fit_parameters(const MeasuredSet& set, std::vector<FitParam> params, const PointModel& model,
                         const FitOptions& o) {
    const unsigned n = unsigned(params.size());
    if (n == 0) throw ConfigError("--params: name at least one hardware parameter to fit");
    FitResult res;
    std::vector<double> start(n);
    for (unsigned i = 0; i < n; ++i) start[i] = params[i].start;
    const auto before = model(start);
    const Errors eb = errors_of(set, before);
    res.mape_before = eb.mape;
    res.rms_before = eb.rms;

    Problem prob{&set, &params, &model, 0, ""};
    nlopt_opt opt = nlopt_create(n >= 2 ? NLOPT_LN_BOBYQA : NLOPT_LN_SBPLX, n);
    std::vector<double> lo(n, 0.0), hi(n, 1.0), x(n);
    for (unsigned i = 0; i < n; ++i)
        x[i] = std::clamp((params[i].start - params[i].lo) / (params[i].hi - params[i].lo), 0.0, 1.0);
    nlopt_set_lower_bounds(opt, lo.data());
    nlopt_set_upper_bounds(opt, hi.data());
    nlopt_set_min_objective(opt, objective, &prob);
    nlopt_set_xtol_rel(opt, o.xtol_rel);
    nlopt_set_maxeval(opt, o.max_evals > 0 ? o.max_evals : int(40 * n + 20));
    std::vector<double> step(n, 0.1);
    nlopt_set_initial_step(opt, step.data());
    double fmin = 0;
    const nlopt_result rc = nlopt_optimize(opt, x.data(), &fmin);
    nlopt_destroy(opt);
    if (!prob.failure.empty() && fmin == std::numeric_limits<double>::max())
        throw std::runtime_error("every evaluation failed: " + prob.failure);
    res.stop_reason = nlopt_reason(rc);
    res.evaluations = prob.evals;
    const auto best = denormalise(params, x.data());
    for (unsigned i = 0; i < n; ++i) params[i].value = best[i];
    const auto after = model(best);
    const Errors ea = errors_of(set, after);
    res.mape_after = ea.mape;
    res.rms_after = ea.rms;

    // Identifiability: each parameter's effect on the points' relative errors, a step of 5% of its
    // range away from the optimum (inward at a bound). A column of zeros cannot be fitted; a
    // column the others already span cannot be separated from them.
    std::vector<std::vector<double>> cols;
    res.identifiability = json::array();
    for (unsigned i = 0; i < n; ++i) {
        auto v = best;
        const double h = 0.05 * (params[i].hi - params[i].lo);
        v[i] = best[i] + h <= params[i].hi ? best[i] + h : best[i] - h;
        const auto moved = model(v);
        std::vector<double> c(set.points.size());
        double norm = 0;
        for (size_t k = 0; k < c.size(); ++k) {
            c[k] = (moved[k] - after[k]) / set.points[k].measured;
            norm += c[k] * c[k];
        }
        norm = std::sqrt(norm);
        // Residual of the column after projecting out the previous ones (Gram-Schmidt).
        std::vector<double> r = c;
        for (const auto& q : cols) {
            double d = 0;
            for (size_t k = 0; k < r.size(); ++k) d += r[k] * q[k];
            for (size_t k = 0; k < r.size(); ++k) r[k] -= d * q[k];
        }
        double rn = 0;
        for (double z : r) rn += z * z;
        rn = std::sqrt(rn);
        json id;
        id["name"] = params[i].name;
        id["sensitivity_pct"] = norm * 100;  // change of the points' relative errors for 5% of the range
        if (norm < 1e-6) {
            id["identifiable"] = false;
            id["why"] = "no measured point changes with it";
            params[i].value = params[i].start;  // the optimizer's wander is no fit: keep the preset's value
        } else if (rn < 1e-3 * norm) {
            id["identifiable"] = false;
            id["why"] = "it moves the points only as the parameters before it in --params do";
        } else {
            id["identifiable"] = true;
            id["why"] = "";
            for (auto& z : r) z /= rn;
            cols.push_back(r);
        }
        res.identifiability.push_back(id);
    }
    res.points = json::array();
    for (size_t k = 0; k < set.points.size(); ++k)
        res.points.push_back({{"id", set.points[k].id}, {"metric", set.points[k].metric},
                              {"measured", set.points[k].measured}, {"before", before[k]}, {"after", after[k]}});
    res.params = params;
    return res;
}

PointModel bnsim_point_model(const MeasuredSet& set, const PredictOptions& po, const std::vector<FitParam>& params) {
    return [&set, po, params](const std::vector<double>& values) {
        Overrides extra;
        for (size_t i = 0; i < params.size(); ++i) {
            std::ostringstream v;
            v.precision(17);
            v << values[i];
            extra.emplace_back("hardware." + params[i].name, v.str());
        }
        const auto pred = predict(set, po, extra);
        std::vector<double> out;
        for (size_t i = 0; i < pred.size(); ++i) {
            if (!pred[i].ok) throw std::runtime_error(set.points[i].id + ": " + pred[i].error);
            out.push_back(pred[i].value);
        }
        return out;
    };
}

namespace {

// The node at a dotted key. yaml-cpp's Node::operator= assigns through to the referenced node, so
// walking uses reset() (rebinding) to leave the tree untouched.
YAML::Node find_node(YAML::Node root, const std::string& dotted) {
    YAML::Node n;
    n.reset(root);
    std::stringstream ss(dotted);
    for (std::string part; std::getline(ss, part, '.');) {
        if (!n.IsMap() || !n[part]) return YAML::Node(YAML::NodeType::Undefined);
        YAML::Node next = n[part];
        n.reset(next);
    }
    return n;
}

}  // namespace

std::vector<FitParam> parse_fit_params(const std::vector<std::string>& specs, const HwConfig& hw) {
    std::vector<FitParam> out;
    for (const auto& spec_list : specs) {
        std::stringstream ss(spec_list);
        for (std::string spec; std::getline(ss, spec, ',');) {
            if (spec.empty()) continue;
            FitParam p;
            const auto eq = spec.find('=');
            p.name = spec.substr(0, eq);
            if (p.name.rfind("hardware.", 0) == 0) p.name = p.name.substr(9);
            const HwParam* hp = hw_params().find(p.name);
            if (!hp) {
                std::string hint;
                for (const auto& c : closest_names(p.name, hw_params().names(), 3)) hint += (hint.empty() ? "; did you mean " : " or ") + c;
                throw ConfigError("--params " + p.name + ": unknown hardware parameter (bnsim params lists them)" + hint);
            }
            if (hp->kind == ParamKind::boolean)
                throw ConfigError("--params " + p.name + ": a flag (true or false) cannot be fitted");
            // The optimizer moves continuously; an integer parameter would be set to 18.8.
            if (hp->kind == ParamKind::integer)
                throw ConfigError("--params " + p.name + ": an integer parameter cannot be fitted (bnsim fit searches "
                                  "real values); compare a few values with bnsim sweep over hardware." + p.name);
            for (const auto& q : out)
                if (q.name == p.name) throw ConfigError("--params " + p.name + ": named twice");
            p.start = hp->get(hw);
            if (eq != std::string::npos) {
                const std::string b = spec.substr(eq + 1);
                const auto colon = b.find(':');
                const auto lo = colon == std::string::npos ? std::nullopt : parse_real(b.substr(0, colon));
                const auto hi = lo ? parse_real(b.substr(colon + 1)) : std::nullopt;
                if (!lo || !hi)
                    throw ConfigError("--params " + excerpt(spec, 80) +
                                      ": expected NAME=LO:HI with finite numbers, e.g. dma.issue_ns=300:1200");
                p.lo = *lo;
                p.hi = *hi;
                for (double v : {p.lo, p.hi})
                    if (v < hp->min || v > hp->max)
                        throw ConfigError("--params " + excerpt(spec, 80) + ": bounds must lie in " + p.name +
                                          "'s allowed range, " + hp->expected() + "; got " + short_number(v));
                p.bounds_from = "--params";
            } else if (const auto it = hw.provenance.find(p.name);
                       it != hw.provenance.end() && it->second.estimate && it->second.uncertainty) {
                p.lo = it->second.uncertainty->lo;
                p.hi = it->second.uncertainty->hi;
                p.bounds_from = "uncertainty range";
            } else {
                p.lo = hp->min;
                p.hi = hp->max;
                p.bounds_from = "allowed range";
            }
            if (!(p.lo < p.hi)) throw ConfigError("--params " + spec + ": the lower bound must be below the upper bound");
            p.integer = hp->kind == ParamKind::integer;
            p.value = p.start;
            out.push_back(p);
        }
    }
    if (out.empty()) throw ConfigError("--params: name at least one hardware parameter to fit");
    return out;
}

void write_fitted_hw(const std::string& hw_file, const OutputFile& out, const FitResult& r, const std::string& data_file) {
    YAML::Node root = YAML::LoadFile(hw_file);
    const std::time_t now = std::time(nullptr);
    char date[32];
    std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
    for (const auto& p : r.params) {
        YAML::Node n = find_node(root, p.name);
        std::string was_source;
        if (n.IsMap()) {
            if (n["source"]) was_source = n["source"].as<std::string>();
            else if (n["note"]) was_source = "estimate: " + n["note"].as<std::string>();
        }
        std::ostringstream note;
        note.precision(6);
        note << "fitted by bnsim fit on " << date << " to " << data_file << " (" << r.points.size()
             << " points): RMS relative error " << r.rms_before << "% -> " << r.rms_after << "%, MAPE " << r.mape_before
             << "% -> " << r.mape_after << "%; range [" << p.lo << ", " << p.hi << "]; was " << p.start
             << (was_source.empty() ? "" : " (" + was_source + ")");
        // An estimate states the range its evidence spans: the preset's range (widened to take
        // in the fitted value if explicit bounds put it outside), else the bounds of the fit.
        auto range_end = [&](const char* end, double bound, bool low) {
            YAML::Node e;
            const YAML::Node& preset = n;  // const: reading a missing key must not add it
            const YAML::Node was = preset.IsMap() && preset["uncertainty"] && preset["uncertainty"][end]
                                       ? preset["uncertainty"][end]
                                       : YAML::Node(YAML::NodeType::Undefined);
            const bool had = was.IsMap() && was["value"];
            const double was_v = had ? was["value"].as<double>() : bound;
            if (had && (low ? p.value >= was_v : p.value <= was_v)) return YAML::Clone(was);
            e["value"] = low ? std::min(was_v, p.value) : std::max(was_v, p.value);
            std::ostringstream why;
            why << (had ? "the preset's range, widened to the value fitted by bnsim fit on "
                        : "the fit's bound (" + p.bounds_from + ") by bnsim fit on ")
                << date << " to " << data_file;
            e["why"] = why.str();
            return e;
        };
        YAML::Node v;
        v["value"] = p.value;
        v["estimate"] = true;
        v["note"] = note.str();
        v["uncertainty"]["low"] = range_end("low", p.lo, true);
        v["uncertainty"]["high"] = range_end("high", p.hi, false);
        // Assign into the parent so a scalar entry becomes a mapping.
        const auto dot = p.name.rfind('.');
        YAML::Node parent = dot == std::string::npos ? root : find_node(root, p.name.substr(0, dot));
        parent[p.name.substr(dot == std::string::npos ? 0 : dot + 1)] = v;
    }
    YAML::Emitter e;
    e.SetDoublePrecision(12);
    e << root;
    out.write([&](std::ostream& o) {
        o << "# Hardware preset written by bnsim fit from " << hw_file << " (" << date << "); fitted values carry\n"
          << "# estimate: true and their provenance in the note.\n"
          << e.c_str() << "\n";
    });
}

}  // namespace bnsim
