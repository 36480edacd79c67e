#include "sim/calibration/metrics.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace bnsim {

const std::vector<std::string>& hw_parameter_names() {
    static const std::vector<std::string> n = {"launch.fixed_ns", "dma.issue_ns", "dma.dispatch_ns",
                                               "dma.completion_ns", "dma.sw_dge_issue_ns",
                                               "act.read_accumulator_ns"};
    return n;
}

double hw_parameter(const HwConfig& hw, const std::string& name) {
    if (name == "launch.fixed_ns") return hw.launch.fixed_ns;
    if (name == "dma.issue_ns") return hw.dma.issue_ns;
    if (name == "dma.dispatch_ns") return hw.dma.dispatch_ns;
    if (name == "dma.completion_ns") return hw.dma.completion_ns;
    if (name == "dma.sw_dge_issue_ns") return hw.dma.sw_dge_issue_ns;
    if (name == "act.read_accumulator_ns") return hw.act.read_accumulator_ns;
    throw std::runtime_error("unknown hardware parameter '" + name + "'");
}

namespace {

std::vector<uint32_t> measured_ids(const GeneratedKernel& k) {
    std::vector<uint32_t> ids;
    if (k.info.contains("calibration") && k.info["calibration"].contains("measured_instructions"))
        ids = k.info["calibration"]["measured_instructions"].get<std::vector<uint32_t>>();
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

}  // namespace

double compute_metric(const std::string& metric, const HwConfig& hw, const GeneratedKernel& k, const SimResult& r) {
    if (metric == "latency_ns") return r.latency_ns;
    if (metric == "kernel_ns") return r.kernel_ns;
    if (metric == "instruction_ns") return measured_span(k, r);
    if (metric == "dma_efficiency") {
        const double bytes = k.info.at("calibration").at("bytes").get<double>();
        const double peak = hw.dma.engines_per_core * hw.dma.engine_bandwidth_gbps;  // B/ns
        if (r.kernel_ns <= 0) throw std::runtime_error("the run took no time");
        return bytes / r.kernel_ns / peak;
    }
    if (metric == "dma_transfer_ns" || metric == "dma_engine_transfer_ns")
        throw std::runtime_error(metric + ": not available from this simulator build");
    throw std::runtime_error("metric '" + metric + "' is not computed from a run");
}

}  // namespace bnsim
