#include "sim/config/run_config.h"

#include <filesystem>
#include <fstream>

#include "configfile/config_node.h"
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

Overrides parse_overrides(const std::vector<std::string>& args) {
    Overrides out;
    for (const auto& a : args) {
        auto eq = a.find('=');
        if (eq == std::string::npos || eq == 0)
            throw ConfigError("--set " + a + ": expected key=value (e.g. --set shape.C=200)");
        out.emplace_back(a.substr(0, eq), a.substr(eq + 1));
    }
    return out;
}

static YAML::Node load_yaml(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw ConfigError(path + ": is a directory, expected a YAML file");
    std::ifstream f(path);
    if (!f) throw ConfigError(path + ": cannot open file");
    try {
        YAML::Node n = YAML::Load(f);
        if (!n.IsDefined() || n.IsNull()) throw ConfigError(path + ": empty config file");
        return n;
    } catch (const YAML::Exception& e) {
        throw ConfigError(path + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) +
                          ": YAML syntax error: " + e.msg);
    }
}

RunConfig load_run_config(const std::string& path, const Overrides& overrides) {
    RunConfig cfg;
    cfg.file = path;
    YAML::Node root = load_yaml(path);
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
        hw_root = load_yaml(cfg.hw_file);
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
    cfg.numerics = parse_numerics_config(top);
    apply_numerics_to_kernel(cfg);
    top.finish();
    return cfg;
}

}  // namespace bnsim
