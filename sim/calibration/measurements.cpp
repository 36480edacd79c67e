#include "sim/calibration/measurements.h"

#include <filesystem>
#include <fstream>
#include <set>

#include "models/hw_params.h"
#include "sim/simulate/run_metrics.h"
#include "configfile/config_node.h"
#include "configfile/yaml_file.h"

namespace bnsim {

namespace fs = std::filesystem;

const std::vector<std::string>& calibration_metrics() {
    static const std::vector<std::string> m = [] {
        std::vector<std::string> names = {"latency_ns", "kernel_ns", "profile_total_time_ns", "instruction_ns", "dma_transfer_ns",
                                          "dma_engine_transfer_ns", "dma_trigger_to_completion_ns", "dma_efficiency",
                                          "dma_active_ns", "dma_transfers"};
        for (const auto& e : engine_busy_metrics()) names.push_back(e.first);
        names.push_back("hw_parameter");
        return names;
    }();
    return m;
}

bool metric_is_ns(const std::string& metric) {
    return metric.size() > 3 && metric.compare(metric.size() - 3, 3, "_ns") == 0;
}

MeasurementSet load_measurements(const std::string& path) {
    std::error_code ec;
    const YAML::Node root = load_yaml_file(path, "a YAML measurements file");
    auto src = std::make_shared<ConfigSource>();
    src->file = path;
    ConfigNode top(root, "", src);
    MeasurementSet set;
    set.file = path;
    set.tolerance_pct = top.real("tolerance_pct", 0.1, 1000, 15);
    set.whole_kernel_tolerance_pct = top.real("whole_kernel_tolerance_pct", 0.1, 1000, 10);
    YAML::Node rows = top.raw("rows");
    if (!rows.IsSequence() || rows.size() == 0) top.fail("rows", "a non-empty list of measurements");
    top.finish();

    const fs::path dir = fs::path(path).parent_path();
    std::set<std::string> ids;
    for (size_t i = 0; i < rows.size(); ++i) {
        const std::string where = "rows[" + std::to_string(i) + "]";
        if (!rows[i].IsMap()) top.fail_at(rows[i], where, "expected a mapping (id, config, metric, measured, source, ...)");
        ConfigNode r(rows[i], where, src);
        Measurement m;
        m.id = r.text("id");
        if (!ids.insert(m.id).second) r.fail_at(r.node()["id"], "id", "duplicate id '" + m.id + "'");
        auto config_path = [&](const std::string& key) {
            const std::string rel = r.text(key);
            const fs::path p = fs::path(rel).is_absolute() ? fs::path(rel) : dir / rel;
            if (!fs::is_regular_file(p, ec))
                r.fail_at(r.node()[key], key, "run config '" + p.string() + "' does not exist");
            return p.string();
        };
        m.config = config_path("config");
        if (r.has("baseline")) m.baseline = config_path("baseline");
        else r.raw("baseline");
        if (r.has("set")) {
            const YAML::Node sets = r.raw("set");
            if (!sets.IsMap() || sets.size() == 0)
                r.fail_at(sets, "set", "expected a mapping of run-config keys to values, e.g. {activation.free: 512}");
            for (const auto& kv : sets) {
                if (!kv.second.IsScalar())
                    r.fail_at(kv.second, "set." + kv.first.as<std::string>(), "expected a single value");
                m.sets.push_back(kv.first.as<std::string>() + "=" + kv.second.Scalar());
            }
        } else {
            r.raw("set");
        }
        m.metric = r.choice("metric", calibration_metrics());
        if (m.metric == "hw_parameter") {
            std::vector<std::string> names;
            for (const HwParam& p : hw_params()) names.push_back(p.name);
            m.parameter = r.choice("parameter", names);
            if (m.baseline) r.fail_at(r.node()["baseline"], "baseline", "an hw_parameter row takes no baseline");
        } else if (r.has("parameter")) {
            r.fail_at(r.node()["parameter"], "parameter", "only hw_parameter rows name a parameter");
        } else {
            r.raw("parameter");
        }
        m.measured = r.real("measured", 1e-12, 1e15);
        m.source = r.text("source");
        if (m.source.size() < 8) r.fail_at(r.node()["source"], "source", "expected the document and what the figure is");
        m.third_party = r.boolean("third_party");
        m.fitted = r.boolean("fitted", false);
        m.uncertainty = r.text("uncertainty");
        m.model_gap = r.text("model_gap", "");
        using Scope = Measurement::Scope;
        const std::string scope = r.choice("scope", {scope_name(Scope::instruction), scope_name(Scope::whole_kernel)},
                                           scope_name(Scope::instruction));
        m.scope = scope == scope_name(Scope::whole_kernel) ? Scope::whole_kernel : Scope::instruction;
        r.finish();
        set.rows.push_back(std::move(m));
    }
    return set;
}

}  // namespace bnsim
