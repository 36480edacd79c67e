#include "sim/sweep/point_runner.h"

#include "kernels/kernel_target.h"
#include "configfile/config_error.h"
#include "sim/config/run_config.h"
#include "sim/report/provenance.h"
#include "sim/report/run_report.h"
#include "sim/simulate.h"

namespace bnsim {

void check_point_config(const std::string& base, const PointParams& params, const std::map<std::string, std::string>& origins) {
    load_run_config(base, Overrides(params.begin(), params.end()), origins);
}

PointOutcome run_point(const std::string& base, const PointParams& params) {
    PointOutcome o;
    try {
        RunConfig cfg = load_run_config(base, Overrides(params.begin(), params.end()));
        GeneratedKernel k = cfg.generate();
        SimOptions so;
        so.policy = cfg.schedule;
        SimResult r = simulate(cfg.hw, k.trace, so);
        o.run = to_json(build_run_report(cfg, k, r));
        o.run["provenance"] = provenance_of(cfg).json();  // as `bnsim run --json` prints it
        o.status = "ok";
    } catch (const KernelError& e) {
        o.status = "infeasible";
        o.error = e.what();
    } catch (const ConfigError& e) {
        o.status = "config_error";
        o.error = e.what();
    } catch (const SimulationError& e) {
        o.status = "deadlock";
        o.error = e.what();
    } catch (const std::exception& e) {
        o.status = "error";
        o.error = e.what();
    }
    return o;
}

nlohmann::ordered_json point_record(const SweepPoint& p, const PointOutcome& o) {
    nlohmann::ordered_json j;
    j["id"] = p.id;
    nlohmann::ordered_json params = nlohmann::ordered_json::object();
    for (const auto& [k, v] : p.params) params[k] = v;
    j["params"] = params;
    j["auto"] = p.is_auto;
    j["status"] = o.status;
    j["error"] = o.error;
    j["run"] = o.status == "ok" ? o.run : nlohmann::ordered_json(nullptr);
    return j;
}

}  // namespace bnsim
