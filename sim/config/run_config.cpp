#include "sim/config/run_config.h"

#include <algorithm>
#include <deque>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "configfile/config_node.h"
#include "configfile/yaml_file.h"
#include "kernels/trace_cache.h"
#include "sim/config/canonical_json.h"
#include "sim/config/host_limits.h"
#include "sim/config/hw_config_loader.h"
#include "trace/dependents.h"

namespace bnsim {

namespace fs = std::filesystem;

// The hardware preset's canonical JSON: a canonical tree with some parameters' values replaced,
// printed when first asked for (provenance; a fit's thousands of simulations never ask).
struct HwCanonical {
    std::shared_ptr<const nlohmann::json> tree;
    std::vector<std::pair<std::string, std::string>> values;  // a parameter's dotted key, its scalar
    mutable std::once_flag once;
    mutable std::string text;

    const std::string& get() const {
        std::call_once(once, [this] {
            if (values.empty()) {
                text = canonical_text(*tree);
                return;
            }
            nlohmann::json t = *tree;
            for (const auto& [key, scalar] : values) *find(t, key) = scalar;
            text = canonical_text(t);
        });
        return text;
    }
    // The `value` under a parameter's dotted key, or nullptr.
    template <class Json>
    static Json* find(Json& t, const std::string& key) {
        Json* at = &t;
        const std::string path = key + ".value";
        for (size_t b = 0; b <= path.size();) {
            const size_t e = std::min(path.find('.', b), path.size());
            if (!at->is_object()) return nullptr;
            const auto it = at->find(path.substr(b, e - b));
            if (it == at->end()) return nullptr;
            at = &*it;
            b = e + 1;
        }
        return at;
    }
};

std::string RunConfig::resolved_json() const {
    return "{\"config\":" + config_json + ",\"hardware\":" + hw_canonical->get() + "}";
}

namespace {

// A hardware preset as load_run_config derives it: the parsed parameters and the canonical JSON
// of the preset's tree after the --set hardware.* overrides.
struct LoadedHw {
    HwConfig hw;
    std::shared_ptr<const HwCanonical> canonical;
};

// What RecentResults keeps and hands out: a copy no caller's later change reaches.
LoadedHw kept_copy(const LoadedHw& v) { return v; }
// yaml-cpp's nodes share their data: a tree is copied whole. A copy has no line marks.
YAML::Node kept_copy(const YAML::Node& n) { return YAML::Clone(n); }
std::vector<CostEntry> kept_copy(const std::vector<CostEntry>& v) { return v; }

// The few most recent results of a pure function of a string key, shared by threads
// (sensitivity, compare): a success is reused exactly; failures are not kept (they are reported as
// always); bounded, so a fit trying thousands of hardware values does not grow it. A value goes
// in and comes out through kept_copy.
template <class V, size_t Kept>
class RecentResults {
public:
    bool find(const std::string& key, V& out) {
        std::lock_guard<std::mutex> lock(mu_);
        for (const auto& [k, v] : entries_)
            if (k == key) {
                out = kept_copy(v);
                return true;
            }
        return false;
    }
    void add(std::string key, const V& v) {
        V mine = kept_copy(v);
        std::lock_guard<std::mutex> lock(mu_);
        if (entries_.size() >= Kept) entries_.pop_front();
        entries_.emplace_back(std::move(key), std::move(mine));
    }

private:
    std::mutex mu_;
    std::deque<std::pair<std::string, V>> entries_;
};

// The presets this process has already parsed, keyed by file, text and overrides. A sweep checks
// every point's config before running any and each forked point loads its own again, and
// sensitivity and compare load one config per point: the same ~25 KB preset each time, whose
// parse is most of a config load. Never destroyed: freeing it at exit bought nothing and cost a
// whole-heap consolidation in glibc's allocator (about 6M instructions, 2% of an estimate run).
RecentResults<LoadedHw, 8>& loaded_hw_cache() {
    static auto* cache = new RecentResults<LoadedHw, 8>;
    return *cache;
}

// The cost tables of the presets this process has parsed, keyed by file and text: a new set of
// hardware.* overrides that names no cost row (a fit's, a sensitivity range end's) takes the
// preset's table instead of parsing its hundred rows again.
RecentResults<std::vector<CostEntry>, 4>& preset_costs() {
    static auto* costs = new RecentResults<std::vector<CostEntry>, 4>;  // never destroyed, as loaded_hw_cache()
    return *costs;
}

// The preset files this process has parsed, as trees, keyed by file and text. Each new set of
// hardware.* overrides (a fit's every evaluation, in every child) starts from a copy of the tree
// instead of parsing the preset again: yaml-cpp's scanner was a fifth of such a config load. A
// copy has no line marks, so a copy that fails to load is not reported: load_run_config loads the
// preset again from its text, and that error names the line.
RecentResults<YAML::Node, 4>& preset_trees() {
    static auto* trees = new RecentResults<YAML::Node, 4>;  // never destroyed, as loaded_hw_cache()
    return *trees;
}

// The presets this process has parsed without overrides, keyed by file and text, with their
// canonical trees: what a new set of parameter overrides starts from (set_param_overrides).
RecentResults<LoadedHw, 4>& preset_bases() {
    static auto* bases = new RecentResults<LoadedHw, 4>;  // never destroyed, as loaded_hw_cache()
    return *bases;
}

std::string loaded_hw_key(const std::string& file, const std::string& text, const Overrides& overrides) {
    std::string key = file;
    key += '\0';
    key += text;
    for (const auto& [k, v] : overrides) {
        key += '\0';
        key += k;
        key += '=';
        key += v;
    }
    return key;
}

}  // namespace

KernelTarget RunConfig::target() const {
    KernelTarget t;
    t.partitions = hw.sbuf.partitions;
    t.sbuf_usable_bytes = hw.sbuf.usable_bytes_per_partition;
    t.sbuf_align = hw.sbuf.min_align_bytes;
    t.num_cores = lnc;
    t.dma_queues = hw.dma.queues_per_engine;
    return t;
}

bool RunConfig::keep_traced() const {
    if (!entry->keep_traced) return false;
    try {
        set_trace_limit(simulable_instructions());
        entry->keep_traced(kernel_params, target());
    } catch (...) {
        // generate() meets the same refusal and reports it.
    }
    return true;
}

namespace {

// What `make` returns (the kernel of `c`), under the trace limit, its refusals naming the file.
template <class Make>
auto made(const RunConfig& c, Make&& make) -> decltype(make()) {
    // A trace this machine could not simulate is refused while it is made, not after the
    // allocator gives up (a legal shape can mean billions of instructions).
    set_trace_limit(simulable_instructions());
    try {
        return make();
    } catch (const KernelError& e) {
        throw KernelError(c.file + ": " + e.what());
    } catch (const TraceTooLarge& e) {
        throw KernelError(c.file + ": " + c.kernel + ": " + e.what() + " on this machine (a run takes about " +
                          std::to_string(kRunBytesPerInstruction) + " bytes per instruction, " +
                          gib_text(usable_memory_bytes()) + " available); expected a smaller shape or larger tiles");
    }
}

}  // namespace

GeneratedKernel RunConfig::generate(Dependencies d) const {
    GeneratedKernel g = made(*this, [&] { return entry->generate(kernel_params, target()); });
    if (d == Dependencies::derived) ensure_dependencies(g.trace);
    return g;
}

std::shared_ptr<const GeneratedKernel> RunConfig::shared_kernel() const {
    if (entry->kept) return made(*this, [&] { return entry->kept(kernel_params, target()); });
    if (!entry->made_from_params_alone) return std::make_shared<const GeneratedKernel>(generate());
    // The kernel is a function of its params, which the run config's tree gives, and the target.
    const KernelTarget t = target();
    std::string key = "run config\n" + kernel + '\n' + config_json;
    for (uint64_t v : {uint64_t(t.partitions), t.sbuf_usable_bytes, t.sbuf_align, uint64_t(t.num_cores), uint64_t(t.dma_queues)})
        key += '\n' + std::to_string(v);
    if (auto k = remembered_kernel(key)) return k;
    GeneratedKernel g = generate();
    // A kernel too large to keep beside the next one (a shape near this machine's limit) is made
    // each time: keeping it would double what a worker holds while it makes another.
    if (g.trace.size() > kRememberedInstructions / 4) return std::make_shared<const GeneratedKernel>(std::move(g));
    if (!g.dependents) g.dependents = std::make_shared<const Dependents>(g.trace);
    auto k = std::make_shared<const GeneratedKernel>(std::move(g));
    remember_kernel(key, k);
    return k;
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

namespace {

// The run configs this process has parsed, as trees, keyed by file and text: a sweep checks each
// of its points' configs before running any and each point loads its own again, all from one
// base file with different overrides, and yaml-cpp took 0.6M instructions to parse a 15-line
// config. A fit's or calibrate's dataset names some 70 configs, each in turn at every
// evaluation: the bound holds them all (a few KB each), where one of 4 kept none. A copy has no
// line marks, so a copy that fails to load is not reported: load_run_config loads the config
// again from its text, and that error names the line.
RecentResults<YAML::Node, 256>& run_trees() {
    static auto* trees = new RecentResults<YAML::Node, 256>;  // never destroyed, as loaded_hw_cache()
    return *trees;
}

// Overrides split into the run config's own and the hardware preset's (hardware.* keys, the
// prefix dropped), each in its order.
struct SplitOverrides {
    Overrides run, hw;
};
SplitOverrides split_overrides(const Overrides& overrides) {
    SplitOverrides s;
    for (const auto& [k, v] : overrides) {
        if (k.rfind("hardware.", 0) == 0) s.hw.emplace_back(k.substr(9), v);
        else s.run.emplace_back(k, v);
    }
    return s;
}

// The hardware preset `hw_file` with `hw_overrides` set: parsed into parameters, or a kept copy.
// `failed` reports a preset that cannot be read or parsed, and throws.
template <class Failed>
LoadedHw load_hw(const std::string& hw_file, const Overrides& hw_overrides, const OverrideOrigins& origins,
                 Failed&& failed) {
    const char* hw_what = "a YAML hardware preset";
    std::string hw_text;
    try {
        hw_text = read_yaml_text(hw_file, hw_what);
    } catch (const ConfigError& e) {
        failed(e);
    }
    // Keyed by the file's normal form: the configs of one folder and of another name one preset
    // by different paths.
    const std::string hw_file_key = fs::path(hw_file).lexically_normal().string();
    const std::string hw_key = loaded_hw_key(hw_file_key, hw_text, hw_overrides);
    LoadedHw loaded;
    if (!loaded_hw_cache().find(hw_key, loaded)) {
        const std::string tree_key = hw_file_key + '\0' + hw_text;
        const bool costs_as_preset = std::none_of(hw_overrides.begin(), hw_overrides.end(),
                                                  [](const auto& kv) { return kv.first.rfind("costs", 0) == 0; });
        // The preset's tree with `overrides` applied, parsed into parameters (its cost table the
        // preset's own when no override names a cost row).
        auto derive = [&](YAML::Node hw_root, const Overrides& overrides) {
            auto hw_src = std::make_shared<ConfigSource>();
            hw_src->file = hw_file;
            hw_src->override_origin = origins;
            apply_hw_overrides(hw_root, overrides, *hw_src);
            ConfigNode hw(hw_root, "hardware", hw_src);
            LoadedHw l;
            std::vector<CostEntry> costs;
            if (costs_as_preset && preset_costs().find(tree_key, costs)) {
                l.hw = parse_hw_config(hw, costs);
            } else {
                l.hw = parse_hw_config(hw);
                if (costs_as_preset) preset_costs().add(tree_key, l.hw.costs);
            }
            auto c = std::make_shared<HwCanonical>();
            c->tree = std::make_shared<const nlohmann::json>(canonical_tree(hw_root));
            l.canonical = std::move(c);
            return l;
        };
        // The long way: from the preset's tree (a kept copy, else the text parsed).
        auto derive_from_preset = [&](const Overrides& overrides) {
            YAML::Node tree;
            if (preset_trees().find(tree_key, tree)) {
                try {
                    return derive(tree, overrides);
                } catch (const ConfigError&) {
                    // reported below, from a fresh parse that knows the lines
                }
            }
            YAML::Node hw_root;
            try {
                hw_root = parse_yaml_text(hw_text, hw_file, hw_what);
            } catch (const ConfigError& e) {
                failed(e);
            }
            preset_trees().add(tree_key, hw_root);  // before its overrides
            return derive(hw_root, overrides);
        };
        // The short way for overrides that each set one parameter (a fit's every evaluation, a
        // sensitivity range end): the preset as parsed without them, with their values set.
        auto with_param_overrides = [&](LoadedHw& out) {
            if (hw_overrides.empty() || !costs_as_preset) return false;
            LoadedHw base;
            if (!preset_bases().find(tree_key, base)) {
                try {
                    base = derive_from_preset({});
                } catch (const ConfigError&) {
                    return false;  // the long way reports it
                }
                preset_bases().add(tree_key, base);
            }
            std::vector<std::string> scalars;
            if (!set_param_overrides(base.hw, hw_overrides, scalars)) return false;
            // The canonical tree as the overridden preset's: each parameter's value replaced.
            auto c = std::make_shared<HwCanonical>();
            c->tree = base.canonical->tree;
            for (size_t i = 0; i < hw_overrides.size(); ++i) {
                if (!HwCanonical::find(*c->tree, hw_overrides[i].first)) return false;
                c->values.emplace_back(hw_overrides[i].first, scalars[i]);
            }
            out.hw = std::move(base.hw);
            out.canonical = std::move(c);
            return true;
        };
        if (!with_param_overrides(loaded)) loaded = derive_from_preset(hw_overrides);
        loaded_hw_cache().add(hw_key, loaded);
    }
    return loaded;
}

// A run config as loaded, without its hardware (cfg.hw left empty), and the target its kernel
// was parsed for.
struct RunPart {
    RunConfig cfg;
    KernelTarget target;
};
RunPart kept_copy(const RunPart& v) { return v; }

// The run configs this process has loaded, keyed by file, text and the overrides that are not
// hardware.*: a fit loads each of its dataset's configs again at every evaluation with new
// hardware values, sensitivity its one config some 50 ways, a sweep's worker the point its
// parent checked. Checking the tree, parsing the kernel's section and making the canonical JSON
// were most of such a load; now only the hardware is loaded again (a kept copy too, most often).
// A kernel's section is parsed for a target (partitions, SBUF size...), so a kept part serves
// only hardware with the same target.
RecentResults<RunPart, 256>& run_parts() {
    static auto* parts = new RecentResults<RunPart, 256>;  // never destroyed, as loaded_hw_cache()
    return *parts;
}

// The run config in `root` (the file's tree, which the overrides change).
RunConfig load_run_config_tree(YAML::Node root, const std::string& path, const Overrides& overrides,
                               const OverrideOrigins& origins) {
    RunConfig cfg;
    cfg.file = path;
    auto run_src = std::make_shared<ConfigSource>();
    run_src->file = path;
    run_src->override_origin = origins;
    const SplitOverrides split = split_overrides(overrides);
    for (const auto& [k, v] : split.run) {
        if (!root.IsMap()) break;  // reported below by ConfigNode
        apply_override(root, k, v, run_src->origin_of(k) + " " + excerpt(k, 80) + "=" + excerpt(v));
        run_src->overridden.insert(k);
    }
    ConfigNode top(root, "", run_src);

    // Hardware preset, then its overrides.
    const std::string hw_name = top.text("hardware", "trn2");
    cfg.hw_file = resolve_hw_path(hw_name, path);
    LoadedHw loaded = load_hw(cfg.hw_file, split.hw, origins, [&](const ConfigError& e) {
        top.fail_at(top.node()["hardware"], "hardware",
                    std::string("preset '") + hw_name + "' could not be loaded: " + e.what());
    });
    cfg.hw = std::move(loaded.hw);

    cfg.lnc = int(top.integer("lnc", 1, 2, 1));
    cfg.schedule = top.choice("schedule", {"list", "program_order"}, "list") == "list"
                       ? SchedulePolicy::list
                       : SchedulePolicy::program_order;
    cfg.kernel = top.choice("kernel", kernel_names());
    cfg.entry = find_kernel(cfg.kernel);
    cfg.kernel_params = cfg.entry->parse(top, cfg.target());
    cfg.numerics = parse_numerics_config(top, *cfg.entry, cfg.kernel_params);
    top.finish();
    cfg.config_json = canonical_json(root);
    cfg.hw_canonical = std::move(loaded.canonical);
    return cfg;
}

}  // namespace

RunConfig load_run_config(const std::string& path, const Overrides& overrides, const OverrideOrigins& origins) {
    const char* what = "a YAML run config";
    const std::string text = read_yaml_text(path, what);
    const std::string key = path + '\0' + text;
    const SplitOverrides split = split_overrides(overrides);
    std::string part_key = key;
    for (const auto& [k, v] : split.run)  // each with its length: no two override lists make one key
        part_key += '\0' + std::to_string(k.size()) + ':' + k + std::to_string(v.size()) + ':' + v;
    RunPart part;
    if (run_parts().find(part_key, part)) {
        try {
            RunConfig cfg = std::move(part.cfg);
            LoadedHw loaded = load_hw(cfg.hw_file, split.hw, origins, [](const ConfigError& e) { throw e; });
            cfg.hw = std::move(loaded.hw);
            cfg.hw_canonical = std::move(loaded.canonical);
            if (cfg.target() == part.target) return cfg;
        } catch (const std::exception&) {
            // reported below, by the long way
        }
    }
    RunConfig cfg;
    YAML::Node kept;
    bool loaded = false;
    if (run_trees().find(key, kept)) {
        try {
            cfg = load_run_config_tree(kept, path, overrides, origins);
            loaded = true;
        } catch (const std::exception&) {
            // reported below, from a fresh parse that knows the lines
        }
    }
    if (!loaded) {
        YAML::Node root = parse_yaml_text(text, path, what);
        run_trees().add(key, root);  // a copy, before the overrides
        cfg = load_run_config_tree(root, path, overrides, origins);
    }
    part.cfg = cfg;
    part.cfg.hw = HwConfig{};
    part.cfg.hw_canonical.reset();
    part.target = cfg.target();
    run_parts().add(part_key, part);
    return cfg;
}

}  // namespace bnsim
