#include "models/sbuf.h"

#include <algorithm>
#include <stdexcept>

namespace bnsim {

Sbuf::Sbuf(sc_core::sc_module_name name, const SbufParams& p, const Trace& trace, uint8_t core)
    : sc_core::sc_module(name), p_(p), core_(core) {
    auto check = [&](const Instruction& in, const Region& r) {
        if (r.space != Space::Sbuf || r.core != core_) return;
        if (r.row_hi > uint32_t(p_.partitions) || r.byte_hi > p_.bytes_per_partition)
            throw std::runtime_error("instruction " + std::to_string(in.id) + " (" + in.tag.what + ") on core " +
                                     std::to_string(core_) + " touches SBUF partitions [" + std::to_string(r.row_lo) +
                                     ", " + std::to_string(r.row_hi) + ") bytes [" + std::to_string(r.byte_lo) +
                                     ", " + std::to_string(r.byte_hi) + ") outside the " +
                                     std::to_string(p_.partitions) + " x " + std::to_string(p_.bytes_per_partition) +
                                     " B buffer");
        if (r.byte_hi > peak_) peak_ = r.byte_hi;
    };
    // Visited in place (no reads()/writes() vectors): this runs over the whole trace per core.
    for (const auto& in : trace.instructions()) {
        if (in.core != core_) continue;
        in.for_each_read([&](const Region& r) { check(in, r); });
        in.for_each_write([&](const Region& r) { check(in, r); });
    }
}

uint64_t sbuf_highest_byte(const Trace& trace, uint8_t core) {
    uint64_t peak = 0;
    auto note = [&](const Region& r) {
        if (r.space == Space::Sbuf && r.core == core) peak = std::max<uint64_t>(peak, r.byte_hi);
    };
    for (const auto& in : trace.instructions()) {
        if (in.core != core) continue;
        in.for_each_read(note);
        in.for_each_write(note);
    }
    return peak;
}

void Sbuf::engine_access(const Instruction& ins) {
    for (const auto& s : ins.srcs)
        if (s.region.space == Space::Sbuf && s.region.core == core_) eng_read_ += s.region.bytes();
    for (const auto& d : ins.dsts)
        if (d.region.space == Space::Sbuf && d.region.core == core_) eng_written_ += d.region.bytes();
}

}  // namespace bnsim
