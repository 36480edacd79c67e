// batch_norm_bwd's registration: its run-config keys (shape, dtype, flags and an optional
// explicit memory config at the top level of a run config), its trace generator, the decisions
// it makes for itself and the summary fields it reports.
#include <algorithm>

#include "kernels/batch_norm_bwd/batch_norm_bwd.h"
#include "kernels/batch_norm_bwd/numerics/numerics_entry.h"
#include "kernels/batch_norm_bwd/report_part.h"
#include "kernels/kernel_entry.h"
#include "configfile/config_node.h"

namespace bnsim::bn {
namespace {

std::any parse(ConfigNode& top, const KernelTarget& t) {
    // The kernel tiles channels by kPMax partitions; a preset with fewer cannot run it.
    if (t.partitions < kPMax)
        throw KernelError("key 'hardware.sbuf.partitions': the hardware has " + std::to_string(t.partitions) +
                          " partitions; expected at least " + std::to_string(kPMax) +
                          " (batch_norm_bwd tiles channels by " + std::to_string(kPMax) + " partitions)");
    Params p;
    ConfigNode shape = top.child("shape");
    const int64_t big = int64_t(1) << 31;
    p.shape.B = shape.integer("B", 1, big);
    p.shape.C = shape.integer("C", 1, big);
    p.shape.D = shape.integer("D", 1, big, 1);
    p.shape.H = shape.integer("H", 1, big);
    p.shape.W = shape.integer("W", 1, big);
    shape.finish();
    // Each dimension is bounded, their product must be too: element and byte counts are int64.
    if (!p.shape.checked_elements())
        top.fail_at(shape.node(), "shape",
                    "B*C*D*H*W = " + std::to_string(p.shape.B) + "*" + std::to_string(p.shape.C) + "*" +
                        std::to_string(p.shape.D) + "*" + std::to_string(p.shape.H) + "*" + std::to_string(p.shape.W) +
                        " is too large; expected at most 2^" + std::to_string(kMaxElementsLog2) + " elements");
    p.dtype = *dtype_from_name(top.choice("dtype", {"bfloat16", "float32"}, "bfloat16"));
    p.fuse_relu = top.boolean("fuse_relu", false);
    p.mask_supplied = top.choice("relu_mask", {"none", "supplied"}, "none") == "supplied";
    if (p.mask_supplied && !p.fuse_relu)
        top.fail_at(top.node()["relu_mask"], "relu_mask",
                    "'supplied' needs fuse_relu: true (the mask is only read by the fused ReLU); expected none");
    p.eps = top.real("eps", 1e-30, 1e30, 1e-5);
    YAML::Node mem = top.node()["memory"];
    if (mem.IsDefined() && mem.IsMap()) {
        ConfigNode m = top.child("memory");
        // Any subset may be given; the kernel's search fills in the rest.
        MemoryChoice c;
        if (m.has("f_tile")) c.f_tile = m.integer("f_tile", 1, kMaxFTile);
        if (m.has("interleave")) c.interleave = int(m.integer("interleave", kMinInterleave, kMaxInterleave));
        if (m.has("direct_x_residency")) c.direct_x_residency = m.boolean("direct_x_residency");
        m.finish();
        p.memory = c;
    } else {
        top.choice("memory", {"auto"}, "auto");
    }
    return p;
}

// tune's axes: the f_tiles the kernel's own search would try (the halving chain from the largest
// legal one, min(spatial, 8192)) while a tile's DMA moves at least 256 B per partition, every
// interleave, residency on and off. Below 256 B per partition a DMA is "severely overhead-bound"
// (nki-dma-bandwidth-guide.rst, via shared/reference/trn2-hardware.md: ~1.3 us fixed per DMA) and
// each halving doubles the DMAs, so smaller tiles are not screened unless given by --axis (a
// declared choice of bnsim's, not the kernel's). The largest legal f_tile is always screened.
std::vector<DecisionAxis> tune_axes(const std::any& a, const KernelTarget&) {
    const Params& p = kernel_params<Params>(a);
    const int64_t f_max = std::min<int64_t>(p.shape.spatial(), kMaxFTile);
    DecisionAxis f{"memory.f_tile", "integer", {}};
    constexpr int64_t kMinDmaBytesPerPartition = 256;
    for (int64_t v = f_max; v >= 1 && (v == f_max || v * dtype_size(p.dtype) >= kMinDmaBytesPerPartition); v /= 2)
        f.values.push_back(std::to_string(v));
    DecisionAxis il{"memory.interleave", "integer", {}};
    for (int v = kMinInterleave; v <= kMaxInterleave; ++v) il.values.push_back(std::to_string(v));
    return {f, il, {"memory.direct_x_residency", "boolean", {"true", "false"}}};
}

}  // namespace

const KernelEntry& kernel_entry() {
    static const KernelEntry e = [] {
        KernelEntry k;
        k.name = "batch_norm_bwd";
        k.description = "the NKI batch-norm backward kernel (dx, dgamma, dbeta), optionally with a fused ReLU";
        k.parse = parse;
        k.generate = [](const std::any& p, const KernelTarget& t) { return generate(kernel_params<Params>(p), t); };
        // The grid is configs/sweeps/seed_grid.yaml's: f_tile 128..4096 (powers of two; the
        // search's own candidates), every interleave, residency on and off.
        k.decision_axes = {{"memory.f_tile", "integer", {"128", "256", "512", "1024", "2048", "4096"}},
                           {"memory.interleave", "integer", {"1", "2", "3", "4", "5", "6", "7", "8"}},
                           {"memory.direct_x_residency", "boolean", {"true", "false"}}};
        k.tune_axes = tune_axes;
        k.add_run_fields = add_run_fields;
        k.print_run_lines = print_run_lines;
        k.print_trace_lines = print_trace_lines;
        k.auto_overrides = {{"memory", "auto"}};
        k.summary_fields = {
            {"f_tile", "free-axis elements per spatial tile"},
            {"interleave", "tile slots in flight per phase (the kernel's interleave)"},
            {"direct_x_residency", "whether direct_x stays in SBUF between the phases (else it is spilled to HBM)"},
            {"replication", "batches processed side by side in one channel tile's partitions"},
            {"memory_source", "search (the kernel's own choice), given (memory: in the run config fixes f_tile and interleave) or partial (the search filled in the rest)"},
            {"n_sp_tiles", "spatial tiles per (batch, channel tile)"},
            {"sharding", "how the logical core's physical cores split the work: none, channel, batch or redundant"},
        };
        k.numerics = &numerics_entry();
        return k;
    }();
    return e;
}

}  // namespace bnsim::bn
