#include "sim/simulate/run_metrics.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <utility>

#include "sim/simulate/interval_union.h"

namespace bnsim {

namespace {

const std::vector<uint32_t>& measured_ids(const GeneratedKernel& k) {
    const std::vector<uint32_t>& ids = k.measured_instructions;
    if (ids.empty()) throw std::runtime_error(k.trace.kernel + ": the kernel marks no measured instruction");
    return ids;
}

// From the first measured instruction's start to the last one's end.
double measured_span(const GeneratedKernel& k, const SimResult& r) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (uint32_t id : measured_ids(k)) {
        const InstrTiming& t = r.timing.at(id);
        lo = std::min(lo, t.start_ns);
        hi = std::max(hi, t.end_ns);
    }
    return hi - lo;
}

// Busy time of every DMA engine of core 0 that moved something.
std::vector<double> active_dma_engines(const SimResult& r) {
    std::vector<double> busy;
    for (const auto& u : r.units.cores.at(0).dma_engines)
        if (u.instructions > 0) busy.push_back(u.busy_ns);
    if (busy.empty()) throw std::runtime_error("no DMA engine moved any data");
    return busy;
}

}  // namespace

const std::vector<std::pair<std::string, Engine>>& engine_busy_metrics() {
    static const std::vector<std::pair<std::string, Engine>> m = {
        {"pe_busy_ns", Engine::Pe}, {"act_busy_ns", Engine::Act}, {"dve_busy_ns", Engine::Dve},
        {"pool_busy_ns", Engine::Pool}, {"sync_busy_ns", Engine::Sync}};
    return m;
}

double compute_metric(const std::string& metric, const HwConfig& hw, const GeneratedKernel& k, const SimResult& r) {
    if (metric == "latency_ns") return r.latency_ns;
    if (metric == "kernel_ns") return r.kernel_ns;
    // A profile's total_time: the kernel and the profiled execution's pre- and postamble.
    if (metric == "profile_total_time_ns") return r.kernel_ns + hw.launch.profile_window_ns;
    if (metric == "instruction_ns") return measured_span(k, r);
    if (metric == "dma_efficiency") {
        if (k.measured_bytes == 0) throw std::runtime_error(k.trace.kernel + ": the kernel gives no measured bytes");
        const double bytes = double(k.measured_bytes);
        const double peak = hw.dma.engines_per_core * hw.dma.engine_bandwidth_gbps;  // B/ns
        if (r.kernel_ns <= 0) throw std::runtime_error("the run took no time");
        return bytes / r.kernel_ns / peak;
    }
    // The DMA engines run the copy's rows in parallel: the copy's transfer is the longest engine's
    // busy time (first descriptor start to last byte moved), without trigger, descriptor
    // generation, dispatch, memory latency or completion.
    if (metric == "dma_transfer_ns") {
        const auto busy = active_dma_engines(r);
        return *std::max_element(busy.begin(), busy.end());
    }
    if (metric == "dma_engine_transfer_ns") {
        const auto busy = active_dma_engines(r);
        double sum = 0;
        for (double b : busy) sum += b;
        return sum / double(busy.size());
    }
    // From the trigger the DMA queues see (descriptors handed over: the end of descriptor
    // generation, on a hardware DGE or in software on GpSimd) to the completion semaphore.
    if (metric == "dma_trigger_to_completion_ns") {
        double lo = std::numeric_limits<double>::infinity(), hi = -lo;
        for (uint32_t id : measured_ids(k)) {
            if (!k.trace.instructions().at(id).is_dma()) throw std::runtime_error("measured instruction is not a DMA");
            lo = std::min(lo, r.timing.at(id).issue_end_ns);
            hi = std::max(hi, r.timing.at(id).end_ns);
        }
        return hi - lo;
    }
    // A profile's dma_active_time and dma_transfer_count, core 0: the time some DMA of the core
    // moves data (each DMA from its first descriptor's start to its last byte moved, the
    // intervals' union, as bnsim's own profile tables count it) and how many DMAs it ran.
    if (metric == "dma_active_ns" || metric == "dma_transfers") {
        std::vector<std::pair<double, double>> spans;
        for (const auto& in : k.trace.instructions())
            if (in.core == 0 && in.is_dma()) spans.emplace_back(r.timing.at(in.id).start_ns, r.timing.at(in.id).data_end_ns);
        if (spans.empty()) throw std::runtime_error("the kernel ran no DMA");
        return metric == "dma_transfers" ? double(spans.size()) : interval_union_length(spans);
    }
    // An engine's busy time summed over the cores: a profile's tensor_engine_active_time,
    // scalar_engine_active_time... (the union of its instructions' intervals, semaphore waits
    // excluded).
    for (const auto& [name, engine] : engine_busy_metrics())
        if (metric == name) {
            double busy = 0;
            for (const auto& core : r.units.cores) busy += core.engines[size_t(engine)].busy_ns;
            if (busy <= 0) throw std::runtime_error("the " + std::string(engine_name(engine)) + " engine ran no instruction");
            return busy;
        }
    throw std::runtime_error("metric '" + metric + "' is not computed from a run");
}

}  // namespace bnsim
