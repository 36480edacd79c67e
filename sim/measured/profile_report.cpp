#include "sim/measured/profile_report.h"

#include <algorithm>
#include <map>

#include "models/cost_model.h"
#include "models/dma_descriptor.h"
#include "sim/simulate/interval_union.h"

namespace bnsim {

const char* profiler_engine_name(Engine e) {
    switch (e) {
    case Engine::Sync: return "sync";
    case Engine::Act: return "scalar";
    case Engine::Dve: return "vector";
    case Engine::Pool: return "gpsimd";
    case Engine::Pe: return "tensor";
    }
    return "?";
}

namespace {

std::string seconds(double ns) { return number_text(ns * 1e-9); }

}  // namespace

Profile simulated_profile(const RunConfig& cfg, const GeneratedKernel& k, const SimResult& r) {
    const Trace& trace = k.trace;
    const CostModel cost(cfg.hw);
    Profile p;
    p.format = "bnsim";
    double t0 = 1e300;
    for (const auto& in : trace.instructions())
        if (in.core == 0) t0 = std::min(t0, std::min(r.timing[in.id].start_ns, r.timing[in.id].ready_ns));
    if (t0 == 1e300) t0 = 0;

    std::map<Engine, std::pair<uint64_t, double>> per_engine;  // count, instruction time
    std::vector<std::pair<double, double>> all, dma;
    uint64_t dma_count = 0;
    double dma_bytes = 0;
    for (const auto& in : trace.instructions()) {
        if (in.core != 0) continue;
        const InstrTiming& t = r.timing[in.id];
        ProfileInstruction pi;
        pi.engine = profiler_engine_name(in.engine);
        pi.opcode = opcode_name(in.opcode);
        pi.nki_source_location = nki_source_location(trace.kernel, in.tag);
        if (in.is_dma()) {
            pi.start_ns = t.ready_ns - t0;
            pi.end_ns = (in.dma.dge == DgeMode::hardware ? t.ready_ns + cost.engine_ns(in) : t.issue_end_ns) - t0;
            std::map<uint16_t, double> bytes;
            for (const auto& d : split_dma(in, trace, cfg.hw)) bytes[d.engine] += d.bytes;
            for (const auto& [eng, b] : bytes) {
                ProfileDmaPacket pk;
                pk.start_ns = t.start_ns - t0;
                pk.end_ns = t.data_end_ns - t0;
                pk.engine_idx = eng;
                pk.queue_name = "q" + std::to_string(in.dma.queue) + " " + in.tag.what;
                pk.transfer_bytes = b;
                pk.nki_source_location = pi.nki_source_location;
                dma.emplace_back(pk.start_ns, pk.end_ns);
                all.emplace_back(pk.start_ns, pk.end_ns);
                dma_bytes += b;
                p.dma_packets.push_back(pk);
            }
            ++dma_count;
        } else {
            pi.start_ns = t.start_ns - t0;
            pi.end_ns = t.end_ns - t0;
        }
        pi.duration_ns = pi.end_ns - pi.start_ns;
        all.emplace_back(pi.start_ns, pi.end_ns);
        auto& pe = per_engine[in.engine];
        ++pe.first;
        pe.second += pi.duration_ns;
        p.instructions.push_back(pi);
    }

    const double total = r.kernel_ns;
    auto pct = [&](double ns) { return number_text(total > 0 ? ns / total : 0); };
    auto& s = p.summary;
    s["total_time"] = seconds(total);
    const double active = interval_union_length(all);
    s["total_active_time"] = seconds(active);
    s["total_active_time_percent"] = pct(active);
    for (Engine e : kAllEngines) {
        const std::string n = profiler_engine_name(e);
        const double busy = r.units.cores.at(0).engines[size_t(e)].busy_ns;
        s[n + "_engine_active_time"] = seconds(busy);
        s[n + "_engine_active_time_percent"] = pct(busy);
        s[n + "_engine_instruction_count"] = std::to_string(per_engine[e].first);
        s[n + "_engine_instruction_time"] = seconds(per_engine[e].second);
    }
    const double dma_active = interval_union_length(dma);
    s["dma_active_time"] = seconds(dma_active);
    s["dma_active_time_percent"] = pct(dma_active);
    s["dma_transfer_count"] = std::to_string(dma_count);
    s["dma_transfer_total_bytes"] = number_text(dma_bytes);
    s["dma_transfer_average_bytes"] = number_text(dma_count ? dma_bytes / double(dma_count) : 0);
    s["hbm_read_bytes"] = std::to_string(r.hbm_bytes_read);
    s["hbm_write_bytes"] = std::to_string(r.hbm_bytes_written);

    auto& m = p.metadata;
    m["is_simulation"] = "true";
    m["simulator"] = "bnsim";
    m["kernel"] = cfg.kernel;
    m["config"] = cfg.file;
    m["hardware"] = cfg.hw.name;
    m["lnc"] = std::to_string(cfg.lnc);
    m["profiled_core"] = "0";
    m["latency_with_launch_ns"] = number_text(r.latency_ns);
    m["num_dma_engines_per_neuroncore"] = std::to_string(cfg.hw.dma.engines_per_core);
    return p;
}

}  // namespace bnsim
