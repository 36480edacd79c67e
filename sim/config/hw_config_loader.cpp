#include "sim/config/hw_config_loader.h"

#include <algorithm>
#include <filesystem>

namespace bnsim {

namespace fs = std::filesystem;

static EngineParams parse_engine(ConfigNode n) {
    EngineParams e;
    e.clock_ghz = n.sourced("clock_ghz", 0.01, 100);
    e.min_ii_cycles = n.sourced("min_ii_cycles", 0, 1e6);
    n.finish();
    return e;
}

HwConfig parse_hw_config(ConfigNode& hw) {
    HwConfig c;
    c.name = hw.text("name");
    {
        ConfigNode n = hw.child("sbuf");
        c.sbuf.partitions = int(n.sourced("partitions", 1, 128));
        c.sbuf.bytes_per_partition = uint64_t(n.sourced("bytes_per_partition", 1024, 1 << 24));
        c.sbuf.usable_bytes_per_partition =
            uint64_t(n.sourced("usable_bytes_per_partition", 2048, double(c.sbuf.bytes_per_partition)));
        c.sbuf.min_align_bytes = uint64_t(n.sourced("min_align_bytes", 1, 4096));
        c.sbuf.access_latency_ns = n.sourced("access_latency_ns", 0, 1e6);
        n.finish();
    }
    {
        ConfigNode n = hw.child("hbm");
        c.hbm.bandwidth_gbps = n.sourced("bandwidth_gbps", 1e-3, 1e6);
        c.hbm.channels = int(n.sourced("channels", 1, 1024));
        c.hbm.interleave_bytes = uint64_t(n.sourced("interleave_bytes", 1, 1 << 30));
        c.hbm.latency_ns = n.sourced("latency_ns", 0, 1e6);
        n.finish();
    }
    {
        ConfigNode n = hw.child("dma");
        c.dma.engines_per_core = int(n.sourced("engines_per_core", 1, 128));
        c.dma.queues_per_engine = int(n.sourced("queues_per_engine", 1, 256));
        c.dma.rows_per_engine = int(n.sourced("rows_per_engine", 1, 128));
        c.dma.engine_bandwidth_gbps = n.sourced("engine_bandwidth_gbps", 1e-3, 1e6);
        c.dma.descriptor_overhead_ns = n.sourced("descriptor_overhead_ns", 0, 1e6);
        c.dma.min_queue_occupancy_ns = n.sourced("min_queue_occupancy_ns", 0, 1e7);
        c.dma.issue_ns = n.sourced("issue_ns", 0, 1e7);
        c.dma.dispatch_ns = n.sourced("dispatch_ns", 0, 1e7);
        c.dma.completion_ns = n.sourced("completion_ns", 0, 1e7);
        c.dma.hw_dge_units = int(n.sourced("hw_dge_units", 1, 64));
        c.dma.sw_dge_issue_ns = n.sourced("sw_dge_issue_ns", 0, 1e7);
        c.dma.trigger_cycles = n.sourced("trigger_cycles", 0, 1e6);
        c.dma.merge_contiguous_rows = int(n.sourced("merge_contiguous_rows", 0, 1));
        n.finish();
    }
    {
        ConfigNode n = hw.child("engines");
        for (Engine e : kAllEngines) c.engines[int(e)] = parse_engine(n.child(engine_name(e)));
        n.finish();
    }
    {
        ConfigNode n = hw.child("act");
        c.act.accumulate_extra_cycles = n.sourced("accumulate_extra_cycles", 0, 1e6);
        c.act.read_accumulator_ns = n.sourced("read_accumulator_ns", 0, 1e6);
        n.finish();
    }
    {
        YAML::Node list = hw.raw("costs");
        if (!list.IsSequence() || list.size() == 0) hw.fail("costs", "a non-empty list of cost rows");
        std::vector<std::string> engines, opcodes;
        for (Engine e : kAllEngines) engines.push_back(engine_name(e));
        for (int i = 0; i < kNumOpcodes; ++i) opcodes.push_back(opcode_name(Opcode(i)));
        for (size_t i = 0; i < list.size(); ++i) {
            // Rows inherit the tree's source so errors point at the row's line.
            ConfigNode row(list[i], hw.key_path("costs[" + std::to_string(i) + "]"), hw.source());
            CostEntry e;
            e.engine = *engine_from_name(row.choice("engine", engines));
            e.opcode = *opcode_from_name(row.choice("opcode", opcodes));
            e.dtype = row.choice("dtype", {"bfloat16", "float32", "any"});
            e.perf_mode = row.text("perf_mode", "1x");
            e.fixed_cycles = row.real("fixed_cycles", 0, 1e7);
            e.cycles_per_elem = row.real("cycles_per_elem", 0, 1e4);
            e.min_cycles = row.real("min_cycles", 0, 1e7);
            e.source = row.text("source");
            if (e.source.empty()) row.fail("source", "a non-empty source");
            row.finish();
            c.costs.push_back(e);
        }
    }
    {
        ConfigNode n = hw.child("link");
        c.link.latency_ns = n.sourced("latency_ns", 0, 1e7);
        c.link.bandwidth_gbps = n.sourced("bandwidth_gbps", 1e-3, 1e6);
        c.link.gpsimd_path_max_free_elems = uint64_t(n.sourced("gpsimd_path_max_free_elems", 0, 1e9));
        c.link.gpsimd_dma_bandwidth_gbps = n.sourced("gpsimd_dma_bandwidth_gbps", 1e-3, 1e6);
        n.finish();
    }
    {
        ConfigNode n = hw.child("launch");
        c.launch.fixed_ns = n.sourced("fixed_ns", 0, 1e9);
        n.finish();
    }
    {
        ConfigNode n = hw.child("numerics");
        c.numerics.scale_bias_operand_bits = int(n.sourced("scale_bias_operand_bits", 1, 24));
        n.finish();
    }
    hw.finish();
    return c;
}

std::string resolve_hw_path(const std::string& name, const std::string& run_file) {
    if (name.find('/') != std::string::npos || (name.size() > 5 && name.substr(name.size() - 5) == ".yaml"))
        return name;
    std::vector<fs::path> candidates;
    // A run config in configs/ or configs/<sub>/ finds configs/hw/ above it.
    fs::path dir = fs::path(run_file).parent_path();
    for (int up = 0; up < 3; ++up) {
        candidates.push_back(dir / "hw" / (name + ".yaml"));
        candidates.push_back(dir / "configs" / "hw" / (name + ".yaml"));
        dir = dir.parent_path();
    }
#ifdef BNSIM_CONFIG_DIR
    candidates.push_back(fs::path(BNSIM_CONFIG_DIR) / "hw" / (name + ".yaml"));
#endif
    for (const auto& p : candidates)
        if (fs::exists(p)) return p.string();
    return (fs::path("configs") / "hw" / (name + ".yaml")).string();
}

}  // namespace bnsim
