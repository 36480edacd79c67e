#pragma once
// A rectangular piece of memory an instruction reads or writes.
//
// SBUF: rows are partitions, bytes are offsets inside a partition, one buffer per core.
// HBM:  buffer is a tensor of the trace's tensor table viewed as [rows, row_bytes].
// AccReg: ACT's per-partition reduce registers (state carried between instructions).
// Psum: the PE array's accumulation buffer, rows are partitions (engines read and write it at
//       other rates than SBUF; no kernel here uses it yet).
// Dependencies are derived from overlaps of these rectangles, so kernels never write edges.
#include <cstdint>
#include <optional>
#include <string>

namespace bnsim {

enum class Space : uint8_t { Sbuf, Hbm, AccReg, Psum };

inline const char* space_name(Space s) {
    switch (s) {
    case Space::Sbuf: return "sbuf";
    case Space::Hbm: return "hbm";
    case Space::AccReg: return "accreg";
    case Space::Psum: return "psum";
    }
    return "?";
}

inline std::optional<Space> space_from_name(const std::string& s) {
    for (Space sp : {Space::Sbuf, Space::Hbm, Space::AccReg, Space::Psum})
        if (s == space_name(sp)) return sp;
    return std::nullopt;
}

struct Region {
    Space space = Space::Sbuf;
    uint8_t core = 0;      // owning core for SBUF/AccReg; issuing core for HBM
    uint32_t buffer = 0;   // HBM tensor id; 0 for SBUF and AccReg
    uint32_t row_lo = 0, row_hi = 0;    // [lo, hi) partitions or tensor rows
    uint64_t byte_lo = 0, byte_hi = 0;  // [lo, hi) bytes within a row

    uint32_t rows() const { return row_hi - row_lo; }
    uint64_t bytes_per_row() const { return byte_hi - byte_lo; }
    uint64_t bytes() const { return uint64_t(rows()) * bytes_per_row(); }
    bool empty() const { return row_hi <= row_lo || byte_hi <= byte_lo; }

    bool same_buffer(const Region& o) const {
        return space == o.space && core == o.core && buffer == o.buffer;
    }
    bool overlaps(const Region& o) const {
        return same_buffer(o) && row_lo < o.row_hi && o.row_lo < row_hi && byte_lo < o.byte_hi &&
               o.byte_lo < byte_hi;
    }
    bool covers(const Region& o) const {
        return same_buffer(o) && row_lo <= o.row_lo && o.row_hi <= row_hi && byte_lo <= o.byte_lo &&
               o.byte_hi <= byte_hi;
    }
};

}  // namespace bnsim
