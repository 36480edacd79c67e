#include "sim/config/run_config.h"

#include <filesystem>
#include <fstream>

#include "configfile/config_node.h"
#include "configfile/yaml_file.h"
#include "sim/config/canonical_json.h"
#include "sim/config/hw_config_loader.h"

namespace bnsim {

KernelTarget RunConfig::target() const {
    KernelTarget t;
    t.partitions = hw.sbuf.partitions;
    t.sbuf_usable_bytes = hw.sbuf.usable_bytes_per_partition;
    t.sbuf_align = hw.sbuf.min_align_bytes;
    t.num_cores = lnc;
    t.dma_queues = hw.dma.queues_per_engine;
    return t;
}

GeneratedKernel RunConfig::generate() const {
    try {
        return entry->generate(kernel_params, target());
    } catch (const KernelError& e) {
        throw KernelError(file + ": " + e.what());
    }
}

Overrides parse_overrides(const std::vector<std::string>& args) {
    Overrides out;
    for (const auto& a : args) {
        auto eq = a.find('=');
        if (eq == std::string::npos || eq == 0)
            throw ConfigError("--set " + a + ": expected key=value (e.g. --set shape.C=200)");
        const std::string key = a.substr(0, eq);
        if (key.front() == '.' || key.back() == '.' || key.find("..") != std::string::npos)
            throw ConfigError("--set " + a + ": empty segment in the key '" + key +
                              "'; expected a dotted key such as shape.C");
        out.emplace_back(key, a.substr(eq + 1));
    }
    return out;
}

RunConfig load_run_config(const std::string& path, const Overrides& overrides) {
    RunConfig cfg;
    cfg.file = path;
    YAML::Node root = load_yaml_file(path, "a YAML run config");
    auto run_src = std::make_shared<ConfigSource>();
    run_src->file = path;
    Overrides hw_overrides;
    for (const auto& [k, v] : overrides) {
        if (k.rfind("hardware.", 0) == 0) {
            hw_overrides.emplace_back(k.substr(9), v);
            continue;
        }
        if (!root.IsMap()) break;  // reported below by ConfigNode
        apply_override(root, k, v, "--set " + k + "=" + v);
        run_src->overridden.insert(k);
    }
    ConfigNode top(root, "", run_src);

    // Hardware preset, then its overrides.
    const std::string hw_name = top.text("hardware", "trn2");
    cfg.hw_file = resolve_hw_path(hw_name, path);
    YAML::Node hw_root;
    try {
        hw_root = load_yaml_file(cfg.hw_file, "a YAML hardware preset");
    } catch (const ConfigError& e) {
        top.fail_at(top.node()["hardware"], "hardware",
                    std::string("preset '") + hw_name + "' could not be loaded: " + e.what());
    }
    auto hw_src = std::make_shared<ConfigSource>();
    hw_src->file = cfg.hw_file;
    apply_hw_overrides(hw_root, hw_overrides, *hw_src);
    ConfigNode hw(hw_root, "hardware", hw_src);
    cfg.hw = parse_hw_config(hw);

    cfg.lnc = int(top.integer("lnc", 1, 2, 1));
    cfg.schedule = top.choice("schedule", {"list", "program_order"}, "list") == "list"
                       ? SchedulePolicy::list
                       : SchedulePolicy::program_order;
    cfg.kernel = top.choice("kernel", kernel_names());
    cfg.entry = find_kernel(cfg.kernel);
    cfg.kernel_params = cfg.entry->parse(top, cfg.target());
    cfg.numerics = parse_numerics_config(top, *cfg.entry, cfg.kernel_params);
    top.finish();
    cfg.resolved_json = "{\"config\":" + canonical_json(root) + ",\"hardware\":" + canonical_json(hw_root) + "}";
    return cfg;
}

}  // namespace bnsim
