#include "sim/fit/fit.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include <nlopt.h>
#include <yaml-cpp/yaml.h>

#include "configfile/input_file.h"
#include "configfile/yaml_file.h"
#include "configfile/number_text.h"
#include "models/hw_params.h"
#include "configfile/closest_names.h"
#include "sim/sampling/halton.h"
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

// ---- the objective, cached ------------------------------------------------------------------

// A parameter vector as the model takes it: inside the bounds, integers whole, flags 0 or 1.
std::vector<double> snapped(const std::vector<FitParam>& ps, std::vector<double> v) {
    for (size_t i = 0; i < ps.size(); ++i) {
        v[i] = std::clamp(v[i], ps[i].lo, ps[i].hi);
        if (ps[i].kind != FitParam::Kind::real) v[i] = std::round(v[i]);
    }
    return v;
}

// The RMS relative error (percent) of the predictions at a parameter vector. Every distinct
// (snapped) vector is evaluated once: integer and flag dimensions revisit the same points often.
class Objective {
public:
    Objective(const MeasuredSet& set, const std::vector<FitParam>& ps, const PointBatchModel& model, int budget)
        : set_(set), ps_(ps), model_(model), budget_(budget) {}

    double operator()(const std::vector<double>& raw) {
        const auto v = snapped(ps_, raw);
        const auto it = cache_.find(v);
        if (it != cache_.end()) return it->second;
        if (evals_ >= budget_) return std::numeric_limits<double>::infinity();
        record(v, model_({v})[0]);
        return cache_.at(v);
    }
    // Evaluates now, in one call of the model, what calling this with each of `raws` in turn
    // would evaluate (the distinct vectors not yet evaluated, within the budget), recording them
    // in that order: the calls that follow find them, and every count and best is as theirs.
    void prefetch(const std::vector<std::vector<double>>& raws) {
        std::vector<std::vector<double>> todo;
        std::set<std::vector<double>> asked;
        for (const auto& raw : raws) {
            auto v = snapped(ps_, raw);
            if (cache_.count(v) || asked.count(v)) continue;
            if (evals_ + int(todo.size()) >= budget_) break;
            asked.insert(v);
            todo.push_back(std::move(v));
        }
        if (todo.empty()) return;
        const std::vector<ModelOutcome> got = model_(todo);
        for (size_t k = 0; k < todo.size(); ++k) record(todo[k], got[k]);
    }
    // Records `v` as evaluated with `got` (a model's outcome for it, made elsewhere).
    void record(const std::vector<double>& v, const ModelOutcome& got) {
        ++evals_;
        double f = std::numeric_limits<double>::infinity();
        if (got.error.empty()) f = errors_of(set_, got.predictions).rms;
        else failure_ = got.error;
        cache_.emplace(v, f);
        if (f < best_f_) best_f_ = f, best_ = v;
    }
    // The error at `raw` if it has been evaluated.
    std::optional<double> known(const std::vector<double>& raw) const {
        const auto it = cache_.find(snapped(ps_, raw));
        return it == cache_.end() ? std::nullopt : std::optional<double>(it->second);
    }
    int evals() const { return evals_; }
    bool spent() const { return evals_ >= budget_; }
    const std::string& failure() const { return failure_; }
    double best_f() const { return best_f_; }
    const std::vector<double>& best() const { return best_; }

private:
    const MeasuredSet& set_;
    const std::vector<FitParam>& ps_;
    const PointBatchModel& model_;
    int budget_;
    int evals_ = 0;
    std::string failure_;
    std::map<std::vector<double>, double> cache_;
    double best_f_ = std::numeric_limits<double>::infinity();
    std::vector<double> best_;
};

// An outcome's predictions; a failure throws.
std::vector<double> predictions_of(const ModelOutcome& o) {
    if (!o.error.empty()) throw std::runtime_error(o.error);
    return o.predictions;
}

// ---- the local stage: BOBYQA over the real dimensions, coordinate steps over the discrete ones --

struct LocalProblem {
    Objective* f;
    const std::vector<FitParam>* ps;
    std::vector<size_t> real_dims;
    std::vector<double> at;  // the full vector; real_dims are overwritten from x
};

double local_objective(unsigned n, const double* x, double* grad, void* data) {
    (void)grad;  // derivative-free
    auto* p = static_cast<LocalProblem*>(data);
    std::vector<double> v = p->at;
    for (unsigned k = 0; k < n; ++k) {
        const FitParam& q = (*p->ps)[p->real_dims[k]];
        v[p->real_dims[k]] = q.lo + x[k] * (q.hi - q.lo);
    }
    const double e = (*p->f)(v);
    return std::isfinite(e) ? e * e : std::numeric_limits<double>::max();
}

// Refines from `v`: the real dimensions by BOBYQA (one at a time: Sbplx) with the discrete ones
// held, then each discrete dimension one step either way (a flag flipped) while that helps;
// repeated until a round improves nothing. Returns the best vector found.
std::vector<double> refine(Objective& f, const std::vector<FitParam>& ps, std::vector<double> v, int evals_per_round,
                           double xtol_rel) {
    std::vector<size_t> real_dims, discrete;
    for (size_t i = 0; i < ps.size(); ++i) (ps[i].kind == FitParam::Kind::real ? real_dims : discrete).push_back(i);
    double fv = f(v);
    for (int round = 0; round < 8 && !f.spent(); ++round) {
        const double before = fv;
        if (!real_dims.empty()) {
            const unsigned n = unsigned(real_dims.size());
            LocalProblem lp{&f, &ps, real_dims, v};
            nlopt_opt opt = nlopt_create(n >= 2 ? NLOPT_LN_BOBYQA : NLOPT_LN_SBPLX, n);
            std::vector<double> lo(n, 0.0), hi(n, 1.0), x(n), step(n, 0.05);
            for (unsigned k = 0; k < n; ++k) {
                const FitParam& q = ps[real_dims[k]];
                x[k] = std::clamp((v[real_dims[k]] - q.lo) / (q.hi - q.lo), 0.0, 1.0);
            }
            nlopt_set_lower_bounds(opt, lo.data());
            nlopt_set_upper_bounds(opt, hi.data());
            nlopt_set_min_objective(opt, local_objective, &lp);
            nlopt_set_xtol_rel(opt, xtol_rel);
            nlopt_set_maxeval(opt, evals_per_round);
            nlopt_set_initial_step(opt, step.data());
            double fmin = 0;
            nlopt_optimize(opt, x.data(), &fmin);
            nlopt_destroy(opt);
            // The optimizer's own best is in f's record (every evaluation goes through it).
            v = f.best();
            fv = f.best_f();
        }
        for (size_t i : discrete) {
            for (double d : {-1.0, 1.0}) {
                std::vector<double> w = v;
                w[i] = ps[i].kind == FitParam::Kind::boolean ? 1 - v[i] : v[i] + d;
                if (w[i] < ps[i].lo || w[i] > ps[i].hi) continue;
                const double fw = f(w);
                if (fw < fv) v = w, fv = fw;
            }
        }
        if (!(fv < before)) break;
    }
    return v;
}

const char* stop_text(const Objective& f) { return f.spent() ? "evaluation budget spent" : "converged"; }

// ---- after the search: bounds, intervals -------------------------------------------------------

// The values of parameter i tried across its range for its interval: every value of a small
// integer range, else 17 evenly spaced ones.
std::vector<double> scan_values(const FitParam& p) {
    std::vector<double> out;
    if (p.kind != FitParam::Kind::real && p.hi - p.lo <= 32) {
        for (double x = p.lo; x <= p.hi; ++x) out.push_back(x);
        return out;
    }
    for (int k = 0; k <= 16; ++k) out.push_back(p.lo + (p.hi - p.lo) * k / 16.0);
    return out;
}

// One edge of a value's interval: from the fitted value at xs[c], the values of xs one way
// (dir -1: down, +1: up) while the error stays within `limit`, then, for a real parameter,
// bisection towards the first value past it, to a ten-thousandth of the range (at most 20 halvings
// of a sixteenth). `error_at` gives the error at a value, or nothing while it is not evaluated:
// then the edge is not known yet.
template <class ErrorAt>
std::optional<double> interval_edge(const FitParam& p, const std::vector<double>& xs, size_t c, int dir, double limit,
                                    ErrorAt&& error_at) {
    size_t k = c;
    bool past = false;  // stopped at a value above the limit (not at the end of xs)
    for (;;) {
        if (dir < 0 ? k == 0 : k + 1 >= xs.size()) break;
        const size_t j = dir < 0 ? k - 1 : k + 1;
        const std::optional<double> e = error_at(xs[j]);
        if (!e) return std::nullopt;
        if (!(*e <= limit)) {
            past = true;
            break;
        }
        k = j;
    }
    double in = xs[k];
    if (p.kind == FitParam::Kind::real && past) {
        const double resolution = 1e-4 * (p.hi - p.lo);
        for (double out = dir < 0 ? xs[k - 1] : xs[k + 1]; dir < 0 ? in - out > resolution : out - in > resolution;) {
            const double mid = 0.5 * (out + in);
            const std::optional<double> e = error_at(mid);
            if (!e) return std::nullopt;
            (*e <= limit ? in : out) = mid;
        }
    }
    return in;
}

}  // namespace

PointBatchModel one_by_one(const PointModel& model) {
    return [model](const std::vector<std::vector<double>>& vs) {
        std::vector<ModelOutcome> out(vs.size());
        for (size_t k = 0; k < vs.size(); ++k) {
            try {
                out[k].predictions = model(vs[k]);
            } catch (const std::exception& e) {
                out[k].error = e.what();
            }
        }
        return out;
    };
}

FitResult fit_parameters(const MeasuredSet& set, std::vector<FitParam> params, const PointModel& model,
                         const FitOptions& o) {
    return fit_parameters(set, std::move(params), one_by_one(model), o);
}

FitResult fit_parameters(const MeasuredSet& set, std::vector<FitParam> params, const PointBatchModel& model,
                         const FitOptions& o) {
    const unsigned n = unsigned(params.size());
    if (n == 0) throw ConfigError("--params: name at least one hardware parameter to fit");
    constexpr unsigned kMaxParams = 16;
    if (n > kMaxParams) throw ConfigError("--params: at most " + std::to_string(kMaxParams) + " parameters at once");
    FitResult res;
    std::vector<double> start(n);
    for (unsigned i = 0; i < n; ++i) start[i] = params[i].start;
    const auto before = predictions_of(model({snapped(params, start)})[0]);
    const Errors eb = errors_of(set, before);
    res.mape_before = eb.mape;
    res.rms_before = eb.rms;

    // The budget: a global sample of 12 per parameter (plus 8), then up to three local
    // refinements of 20 per parameter (plus 10) each.
    const int global = 12 * int(n) + 8, local = 20 * int(n) + 10, starts = 3;
    const int budget = o.max_evals > 0 ? o.max_evals : global + starts * local;
    Objective f(set, params, model, budget);
    if (budget > 0) f.record(snapped(params, start), {before, ""});  // the start, just evaluated

    // Global: the start and a Halton sample of the whole box (low discrepancy: no region of the
    // ranges is left unvisited, as a local search from one start leaves them), evaluated together.
    struct Sample {
        double f;
        std::vector<double> v;
    };
    std::vector<Sample> samples{{f(start), snapped(params, start)}};
    const Halton halton(n, false);
    std::vector<std::vector<double>> sample_points;
    for (int k = 1; k <= std::min(global, budget / 2); ++k) {
        std::vector<double> v(n);
        for (unsigned i = 0; i < n; ++i) v[i] = params[i].lo + halton.at(unsigned(k), i) * (params[i].hi - params[i].lo);
        sample_points.push_back(snapped(params, v));
    }
    // At most half the budget after the start: every one of them is evaluated.
    f.prefetch(sample_points);
    for (const auto& v : sample_points) samples.push_back({f(v), v});
    std::stable_sort(samples.begin(), samples.end(), [](const Sample& a, const Sample& b) { return a.f < b.f; });
    // Local: from the best samples that are apart from each other (a tenth of a range in some
    // parameter), so the refinements explore different basins.
    std::vector<std::vector<double>> picked;
    for (const auto& s : samples) {
        if (picked.size() >= size_t(starts) || !std::isfinite(s.f)) break;
        bool apart = true;
        for (const auto& p : picked) {
            double far = 0;
            for (unsigned i = 0; i < n; ++i) far = std::max(far, std::fabs(s.v[i] - p[i]) / (params[i].hi - params[i].lo));
            apart = apart && far > 0.1;
        }
        if (apart) picked.push_back(s.v);
    }
    for (const auto& p : picked) {
        if (f.spent()) break;
        refine(f, params, p, local, o.xtol_rel);
    }
    if (!std::isfinite(f.best_f())) throw std::runtime_error("every evaluation failed: " + f.failure());
    res.stop_reason = stop_text(f);
    res.method = "global: the start and " + std::to_string(samples.size() - 1) +
                 " Halton points over the ranges; local: BOBYQA (Sbplx for one real parameter) over real "
                 "parameters and unit steps over integers and flags, from the " + std::to_string(picked.size()) +
                 " best points a tenth of a range apart";
    const std::vector<double> best = f.best();
    const double fbest = f.best_f();
    for (unsigned i = 0; i < n; ++i) params[i].value = best[i];

    // A value on its bound is said so, with the side the data pull to: the objective a little
    // inside the bound is worse than on it (the best fit may lie past the range).
    for (unsigned i = 0; i < n; ++i) {
        FitParam& p = params[i];
        const double span = p.hi - p.lo, eps = p.kind == FitParam::Kind::real ? 1e-3 * span : 0;
        const bool low = best[i] <= p.lo + eps, high = best[i] >= p.hi - eps;
        if (!low && !high) continue;
        p.at_bound = low ? "low" : "high";
        std::vector<double> inside = best;
        inside[i] = low ? p.lo + std::max(0.02 * span, p.kind == FitParam::Kind::real ? 0.0 : 1.0)
                        : p.hi - std::max(0.02 * span, p.kind == FitParam::Kind::real ? 0.0 : 1.0);
        if (p.kind == FitParam::Kind::boolean) continue;  // a flag's two values are its range
        const double fin = f(inside);
        if (std::isfinite(fin) && fin > fbest) p.pull = low ? "below the range" : "above the range";
    }

    // Each value's interval: the values of that parameter (the others held at the fit) whose
    // RMS error stays within the tolerance of the minimum, contiguous around the fitted value,
    // each edge then narrowed by bisection.
    res.interval_tolerance_pct = o.interval_tolerance_pct;
    const double limit = fbest + o.interval_tolerance_pct;
    Objective scan(set, params, model, std::numeric_limits<int>::max());
    // The parameters' scans, each side of each on its own, take their steps in rounds: a round
    // replays every unfinished side over the errors known so far up to its first step not yet
    // evaluated, then evaluates those steps together. Each side's steps depend only on its own
    // results, so every side takes the steps it would alone, and the same vectors are evaluated.
    std::vector<std::vector<double>> grid(n);
    std::vector<size_t> at_best(n);
    for (unsigned i = 0; i < n; ++i) {
        grid[i] = scan_values(params[i]);
        grid[i].push_back(best[i]);
        std::sort(grid[i].begin(), grid[i].end());
        grid[i].erase(std::unique(grid[i].begin(), grid[i].end()), grid[i].end());
        at_best[i] = size_t(std::find(grid[i].begin(), grid[i].end(), best[i]) - grid[i].begin());
    }
    std::vector<std::optional<double>> lo_in(n), hi_in(n);
    for (;;) {
        std::vector<std::vector<double>> steps;
        for (unsigned i = 0; i < n; ++i) {
            const auto known = [&](double x) -> std::optional<double> {
                std::vector<double> v = best;
                v[i] = x;
                const std::optional<double> e = scan.known(v);
                if (!e) steps.push_back(std::move(v));
                return e;
            };
            if (!lo_in[i]) lo_in[i] = interval_edge(params[i], grid[i], at_best[i], -1, limit, known);
            if (!hi_in[i]) hi_in[i] = interval_edge(params[i], grid[i], at_best[i], +1, limit, known);
        }
        if (steps.empty()) break;
        scan.prefetch(steps);
    }
    for (unsigned i = 0; i < n; ++i) {
        params[i].interval_lo = *lo_in[i];
        params[i].interval_hi = *hi_in[i];
    }
    res.evaluations = f.evals() + scan.evals();
    // The fitted vector and each identifiability step from it (below), evaluated together.
    std::vector<std::vector<double>> steps{best};
    for (unsigned i = 0; i < n; ++i) {
        auto v = best;
        if (params[i].kind == FitParam::Kind::boolean) {
            v[i] = 1 - best[i];
        } else {
            double h = 0.05 * (params[i].hi - params[i].lo);
            if (params[i].kind == FitParam::Kind::integer) h = std::max(1.0, std::round(h));
            v[i] = best[i] + h <= params[i].hi ? best[i] + h : best[i] - h;
        }
        steps.push_back(v);
    }
    const std::vector<ModelOutcome> stepped = model(steps);
    const auto after = predictions_of(stepped[0]);
    const Errors ea = errors_of(set, after);
    res.mape_after = ea.mape;
    res.rms_after = ea.rms;

    // Identifiability: each parameter's effect on the points' relative errors, a step of 5% of its
    // range away from the optimum (inward at a bound; one unit for an integer, the other value for a
    // flag). A column of zeros cannot be fitted; a column the others already span cannot be
    // separated from them.
    std::vector<std::vector<double>> cols;
    for (unsigned i = 0; i < n; ++i) {
        const auto moved = predictions_of(stepped[i + 1]);
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
        Identifiability id;
        id.name = params[i].name;
        id.sensitivity_pct = norm * 100;  // change of the points' relative errors for 5% of the range
        if (norm < 1e-6) {
            id.why = "no measured point changes with it";
            params[i].value = params[i].start;  // the search's wander is no fit: keep the preset's value
        } else if (rn < 1e-3 * norm) {
            id.why = "it moves the points only as the parameters before it in --params do";
        } else {
            id.identifiable = true;
            for (auto& z : r) z /= rn;
            cols.push_back(r);
        }
        res.identifiability.push_back(id);
    }
    for (size_t k = 0; k < set.points.size(); ++k)
        res.points.push_back({set.points[k].id, set.points[k].metric, set.points[k].measured, before[k], after[k]});
    res.params = params;
    return res;
}

PointBatchModel bnsim_point_model(const MeasuredSet& set, const PredictOptions& options,
                                  const std::vector<FitParam>& params) {
    PredictOptions po = options;
    po.engine_busy = false;  // the fit weighs each point's value alone
    return [&set, po, params](const std::vector<std::vector<double>>& vectors) {
        std::vector<Overrides> extras;
        for (const auto& values : vectors) {
            Overrides extra;
            for (size_t i = 0; i < params.size(); ++i) {
                std::ostringstream v;
                v.precision(17);
                if (params[i].kind == FitParam::Kind::boolean) v << (values[i] != 0 ? "true" : "false");
                else if (params[i].kind == FitParam::Kind::integer) v << std::llround(values[i]);
                else v << values[i];
                extra.emplace_back("hardware." + params[i].name, v.str());
            }
            extras.push_back(std::move(extra));
        }
        const auto preds = predict_each(set, po, extras);
        std::vector<ModelOutcome> out(vectors.size());
        for (size_t k = 0; k < vectors.size(); ++k) {
            for (size_t i = 0; i < preds[k].size(); ++i) {
                if (!preds[k][i].ok) {
                    out[k].predictions.clear();
                    out[k].error = set.points[i].id + ": " + preds[k][i].error;
                    break;
                }
                out[k].predictions.push_back(preds[k][i].value);
            }
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
            p.kind = hp->kind == ParamKind::boolean   ? FitParam::Kind::boolean
                     : hp->kind == ParamKind::integer ? FitParam::Kind::integer
                                                      : FitParam::Kind::real;
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
            p.value = p.start;
            out.push_back(p);
        }
    }
    if (out.empty()) throw ConfigError("--params: name at least one hardware parameter to fit");
    return out;
}

void write_fitted_hw(const std::string& hw_file, const OutputFile& out, const FitResult& r, const std::string& data_file) {
    YAML::Node root = load_yaml_file(hw_file, "a YAML hardware preset");
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
        if (p.kind == FitParam::Kind::boolean) v["value"] = p.value != 0;
        else if (p.kind == FitParam::Kind::integer) v["value"] = std::llround(p.value);
        else v["value"] = p.value;
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
