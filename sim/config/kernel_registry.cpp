#include "sim/config/kernel_registry.h"

#include "kernels/batch_norm_bwd/batch_norm_bwd.h"
#include "sim/config/calibration_kernels.h"

namespace bnsim {

// batch_norm_bwd's keys live at the top level of a run config (shape, dtype, ...).
static KernelBuilder parse_batch_norm_bwd(ConfigNode& top, RunConfig& cfg) {
    bn::Params p;
    ConfigNode shape = top.child("shape");
    const int64_t big = int64_t(1) << 31;
    p.shape.B = shape.integer("B", 1, big);
    p.shape.C = shape.integer("C", 1, big);
    p.shape.D = shape.integer("D", 1, big, 1);
    p.shape.H = shape.integer("H", 1, big);
    p.shape.W = shape.integer("W", 1, big);
    shape.finish();
    p.dtype = *dtype_from_name(top.choice("dtype", {"bfloat16", "float32"}, "bfloat16"));
    p.fuse_relu = top.boolean("fuse_relu", false);
    p.mask_supplied = top.choice("relu_mask", {"none", "supplied"}, "none") == "supplied";
    p.eps = top.real("eps", 1e-30, 1e30, 1e-5);
    YAML::Node mem = top.node()["memory"];
    if (mem.IsDefined() && mem.IsMap()) {
        ConfigNode m = top.child("memory");
        bn::MemoryChoice c;
        c.f_tile = m.integer("f_tile", 1, bn::kMaxFTile);
        c.interleave = int(m.integer("interleave", bn::kMinInterleave, bn::kMaxInterleave));
        c.direct_x_residency = m.boolean("direct_x_residency", true);
        m.finish();
        p.memory = c;
    } else {
        top.choice("memory", {"auto"}, "auto");
    }
    cfg.batch_norm_bwd = p;
    return [p](const KernelTarget& t) { return bn::generate(p, t); };
}

const std::vector<KernelEntry>& kernel_registry() {
    static const std::vector<KernelEntry> entries = {
        {"batch_norm_bwd", parse_batch_norm_bwd},
        // Calibration microbenchmarks (kernels/calibration, configs/calibration).
        {"dma_copy", parse_dma_copy},
        {"activation", parse_activation},
        {"vector_op", parse_vector_op},
        {"vector_add", parse_vector_add},
    };
    return entries;
}

std::vector<std::string> kernel_names() {
    std::vector<std::string> names;
    for (const auto& k : kernel_registry()) names.push_back(k.name);
    return names;
}

}  // namespace bnsim
