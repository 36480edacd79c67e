#include "sim/sweep/point_runner.h"

#include "kernels/kernel_target.h"
#include "configfile/config_error.h"
#include "sim/config/run_config.h"
#include "sim/report/provenance.h"
#include "sim/report/run_report.h"
#include "sim/simulate/simulate.h"

namespace bnsim {

void check_point_config(const std::string& base, const PointParams& params, const std::map<std::string, std::string>& origins) {
    load_run_config(base, Overrides(params.begin(), params.end()), origins);
}

SweepRecord run_point(const std::string& base, const SweepPoint& p) {
    try {
        RunConfig cfg = load_run_config(base, Overrides(p.params.begin(), p.params.end()));
        GeneratedKernel k = cfg.generate();
        SimOptions so;
        so.policy = cfg.schedule;
        SimResult r = simulate(cfg.hw, k.trace, so);
        SweepRecord rec = failed_record(p, "ok", "");
        rec.run = build_run_report(cfg, k, r);
        rec.provenance = provenance_of(cfg).json();  // as `bnsim run --json` prints it
        return rec;
    } catch (const KernelError& e) {
        return failed_record(p, "infeasible", e.what());
    } catch (const ConfigError& e) {
        return failed_record(p, "config_error", e.what());
    } catch (const SimulationError& e) {
        return failed_record(p, "deadlock", e.what());
    } catch (const std::exception& e) {
        return failed_record(p, "error", e.what());
    }
}

}  // namespace bnsim
