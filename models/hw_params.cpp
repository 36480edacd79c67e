#include "models/hw_params.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace bnsim {

const char* param_kind_name(ParamKind k) {
    switch (k) {
    case ParamKind::real: return "real";
    case ParamKind::integer: return "integer";
    case ParamKind::boolean: return "boolean";
    }
    return "?";
}

HwParam::HwParam(std::string name_, std::string unit_, ParamKind kind_, double min_, double max_, Getter get,
                 Setter set)
    : name(std::move(name_)), unit(std::move(unit_)), kind(kind_), min(min_), max(max_), get_(std::move(get)),
      set_(std::move(set)) {}

std::string HwParam::expected() const {
    std::ostringstream s;
    switch (kind) {
    case ParamKind::boolean: return "true or false";
    case ParamKind::integer: s << "an integer in [" << int64_t(min) << ", " << int64_t(max) << "]"; break;
    case ParamKind::real: s << "a number in [" << min << ", " << max << "]"; break;
    }
    return s.str();
}

std::string HwParam::problem(double v) const {
    const bool integral = std::isfinite(v) && v == std::floor(v);
    if (!std::isfinite(v) || v < min || v > max || (kind != ParamKind::real && !integral)) {
        std::ostringstream s;
        s << name << ": expected " << expected() << ", got " << v;
        return s.str();
    }
    return "";
}

void HwParam::set(HwConfig& hw, double v) const {
    const std::string why = problem(v);
    if (!why.empty()) {
        if (std::isfinite(v) && (v < min || v > max)) throw std::out_of_range(why);
        throw std::invalid_argument(why);
    }
    set_(hw, v);
}

ParamTable::ParamTable(std::vector<HwParam> params) : params_(std::move(params)) {}

const HwParam* ParamTable::find(const std::string& name) const {
    for (const auto& p : params_)
        if (p.name == name) return &p;
    return nullptr;
}

const HwParam& ParamTable::at(const std::string& name) const {
    if (const HwParam* p = find(name)) return *p;
    throw std::out_of_range("unknown hardware parameter '" + name + "'");
}

std::vector<std::string> ParamTable::names() const {
    std::vector<std::string> out;
    for (const auto& p : params_) out.push_back(p.name);
    return out;
}

bool ParamTable::is_group(const std::string& prefix) const {
    for (const auto& p : params_)
        if (p.name.size() > prefix.size() && p.name.compare(0, prefix.size(), prefix) == 0 &&
            p.name[prefix.size()] == '.')
            return true;
    return false;
}

namespace {

constexpr double kMaxNs = 1e7;

// A field reached through two member pointers, e.g. &HwConfig::dma, &DmaParams::issue_ns.
template <class Group, class T>
HwParam field(std::string name, std::string unit, ParamKind kind, double min, double max, Group HwConfig::*group,
              T Group::*member) {
    return HwParam(
        std::move(name), std::move(unit), kind, min, max,
        [group, member](const HwConfig& c) { return double(c.*group.*member); },
        [group, member](HwConfig& c, double v) { (c.*group).*member = T(v); });
}

// A field of one engine's parameters, e.g. engines.dve.clock_ghz.
HwParam engine_field(Engine e, const char* leaf, std::string unit, double min, double max,
                     double EngineParams::*member) {
    const int i = int(e);
    return HwParam(
        std::string("engines.") + engine_name(e) + "." + leaf, std::move(unit), ParamKind::real, min, max,
        [i, member](const HwConfig& c) { return c.engines[i].*member; },
        [i, member](HwConfig& c, double v) { c.engines[i].*member = v; });
}

std::vector<HwParam> declare() {
    using K = ParamKind;
    const double B = double(1ull << 24);
    std::vector<HwParam> t = {
        field("sbuf.partitions", "count", K::integer, 1, 128, &HwConfig::sbuf, &SbufParams::partitions),
        field("sbuf.bytes_per_partition", "B", K::integer, 1024, B, &HwConfig::sbuf, &SbufParams::bytes_per_partition),
        // At most sbuf.bytes_per_partition (checked by the loader across the two).
        field("sbuf.usable_bytes_per_partition", "B", K::integer, 2048, B, &HwConfig::sbuf,
              &SbufParams::usable_bytes_per_partition),
        field("sbuf.min_align_bytes", "B", K::integer, 1, 4096, &HwConfig::sbuf, &SbufParams::min_align_bytes),
        field("sbuf.access_latency_ns", "ns", K::real, 0, 1e6, &HwConfig::sbuf, &SbufParams::access_latency_ns),

        field("hbm.bandwidth_gbps", "GB/s", K::real, 1e-3, 1e6, &HwConfig::hbm, &HbmParams::bandwidth_gbps),
        field("hbm.channels", "count", K::integer, 1, 1024, &HwConfig::hbm, &HbmParams::channels),
        field("hbm.interleave_bytes", "B", K::integer, 1, double(1ull << 30), &HwConfig::hbm,
              &HbmParams::interleave_bytes),
        field("hbm.latency_ns", "ns", K::real, 0, 1e6, &HwConfig::hbm, &HbmParams::latency_ns),

        field("dma.engines_per_core", "count", K::integer, 1, 128, &HwConfig::dma, &DmaParams::engines_per_core),
        field("dma.queues_per_engine", "count", K::integer, 1, 256, &HwConfig::dma, &DmaParams::queues_per_engine),
        field("dma.rows_per_engine", "count", K::integer, 1, 128, &HwConfig::dma, &DmaParams::rows_per_engine),
        field("dma.engine_bandwidth_gbps", "GB/s", K::real, 1e-3, 1e6, &HwConfig::dma,
              &DmaParams::engine_bandwidth_gbps),
        field("dma.descriptor_overhead_ns", "ns", K::real, 0, 1e6, &HwConfig::dma, &DmaParams::descriptor_overhead_ns),
        field("dma.packet_bytes", "B", K::integer, 0, 1 << 20, &HwConfig::dma, &DmaParams::packet_bytes),
        field("dma.min_queue_occupancy_ns", "ns", K::real, 0, kMaxNs, &HwConfig::dma,
              &DmaParams::min_queue_occupancy_ns),
        field("dma.issue_ns", "ns", K::real, 0, kMaxNs, &HwConfig::dma, &DmaParams::issue_ns),
        field("dma.dispatch_ns", "ns", K::real, 0, kMaxNs, &HwConfig::dma, &DmaParams::dispatch_ns),
        field("dma.completion_ns", "ns", K::real, 0, kMaxNs, &HwConfig::dma, &DmaParams::completion_ns),
        field("dma.hw_dge_units", "count", K::integer, 1, 64, &HwConfig::dma, &DmaParams::hw_dge_units),
        field("dma.dge_bound_to_issuer", "flag", K::boolean, 0, 1, &HwConfig::dma, &DmaParams::dge_bound_to_issuer),
        field("dma.sw_dge_issue_ns", "ns", K::real, 0, kMaxNs, &HwConfig::dma, &DmaParams::sw_dge_issue_ns),
        field("dma.trigger_cycles", "cycles", K::real, 0, 1e6, &HwConfig::dma, &DmaParams::trigger_cycles),
        field("dma.merge_contiguous_rows", "flag", K::boolean, 0, 1, &HwConfig::dma, &DmaParams::merge_contiguous_rows),
    };
    for (Engine e : kAllEngines) {
        t.push_back(engine_field(e, "clock_ghz", "GHz", 0.01, 100, &EngineParams::clock_ghz));
        t.push_back(engine_field(e, "min_ii_cycles", "cycles", 0, 1e6, &EngineParams::min_ii_cycles));
        t.push_back(engine_field(e, "result_latency_cycles", "cycles", 0, 1e6, &EngineParams::result_latency_cycles));
    }
    std::vector<HwParam> rest = {
        field("act.accumulate_extra_cycles", "cycles", K::real, 0, 1e6, &HwConfig::act,
              &ActParams::accumulate_extra_cycles),
        field("act.read_accumulator_ns", "ns", K::real, 0, 1e6, &HwConfig::act, &ActParams::read_accumulator_ns),
        field("act.table_switch_ns", "ns", K::real, 0, 1e6, &HwConfig::act, &ActParams::table_switch_ns),
        field("semaphore.latency_ns", "ns", K::real, 0, 1e6, &HwConfig::semaphore, &SemaphoreParams::latency_ns),

        field("link.latency_ns", "ns", K::real, 0, kMaxNs, &HwConfig::link, &LinkParams::latency_ns),
        field("link.bandwidth_gbps", "GB/s", K::real, 1e-3, 1e6, &HwConfig::link, &LinkParams::bandwidth_gbps),
        field("link.gpsimd_path_max_free_elems", "elements", K::integer, 0, 1e9, &HwConfig::link,
              &LinkParams::gpsimd_path_max_free_elems),
        field("link.gpsimd_dma_bandwidth_gbps", "GB/s", K::real, 1e-3, 1e6, &HwConfig::link,
              &LinkParams::gpsimd_dma_bandwidth_gbps),

        field("launch.fixed_ns", "ns", K::real, 0, 1e9, &HwConfig::launch, &LaunchParams::fixed_ns),
        field("launch.profile_window_ns", "ns", K::real, 0, 1e9, &HwConfig::launch, &LaunchParams::profile_window_ns),

        field("numerics.scale_bias_operand_bits", "bits", K::integer, 1, 24, &HwConfig::numerics,
              &NumericsParams::scale_bias_operand_bits),
    };
    t.insert(t.end(), rest.begin(), rest.end());
    return t;
}

}  // namespace

const ParamTable& hw_params() {
    static const ParamTable table(declare());
    return table;
}

std::vector<EstimatedParam> estimated_params(const HwConfig& hw) {
    std::vector<EstimatedParam> out;
    for (const HwParam& p : hw_params()) {
        auto it = hw.provenance.find(p.name);
        if (it == hw.provenance.end() || !it->second.estimate || !it->second.uncertainty) continue;
        out.push_back({&p, p.get(hw), *it->second.uncertainty});
    }
    return out;
}

}  // namespace bnsim
