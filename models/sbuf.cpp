#include "models/sbuf.h"

#include <algorithm>
#include <stdexcept>

namespace bnsim {

Sbuf::Sbuf(sc_core::sc_module_name name, const SbufParams& p, uint8_t core)
    : sc_core::sc_module(name), p_(p), core_(core) {}

void note_sbuf_peak(const Instruction& in, const Region& r, std::vector<uint64_t>& peak) {
    if (r.space == Space::Sbuf && r.core == in.core && r.core < peak.size())
        peak[r.core] = std::max<uint64_t>(peak[r.core], r.byte_hi);
}

std::vector<uint64_t> sbuf_highest_bytes(const Trace& trace) {
    std::vector<uint64_t> peak(size_t(std::max(1, trace.num_cores)), 0);
    for (const auto& in : trace.instructions()) {
        in.for_each_read([&](const Region& r) { note_sbuf_peak(in, r, peak); });
        in.for_each_write([&](const Region& w) { note_sbuf_peak(in, w, peak); });
    }
    return peak;
}

void check_sbuf_access(const SbufParams& p, const Instruction& in, const Region& r, std::vector<uint64_t>& peak) {
    if (r.space != Space::Sbuf || r.core != in.core) return;
    if (r.row_hi > uint32_t(p.partitions) || r.byte_hi > p.bytes_per_partition)
        throw std::runtime_error("instruction " + std::to_string(in.id) + " (" + in.tag.what + ") on core " +
                                 std::to_string(r.core) + " touches SBUF partitions [" + std::to_string(r.row_lo) +
                                 ", " + std::to_string(r.row_hi) + ") bytes [" + std::to_string(r.byte_lo) + ", " +
                                 std::to_string(r.byte_hi) + ") outside the " + std::to_string(p.partitions) + " x " +
                                 std::to_string(p.bytes_per_partition) + " B buffer");
    note_sbuf_peak(in, r, peak);
}

void Sbuf::engine_access(const Instruction& ins) {
    for (const auto& s : ins.srcs)
        if (s.region.space == Space::Sbuf && s.region.core == core_) eng_read_ += s.region.bytes();
    for (const auto& d : ins.dsts)
        if (d.region.space == Space::Sbuf && d.region.core == core_) eng_written_ += d.region.bytes();
}

}  // namespace bnsim
