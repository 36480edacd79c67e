// The device memory: inputs lent read-only instead of copied, only touched pages filled.
#include <catch2/catch.hpp>

#include <cstring>
#include <stdexcept>

#include "numerics/device_memory.h"
#include "numerics/hbm_io.h"
#include "numerics_test_util.h"

using namespace bnsim;

TEST_CASE("device memory lends inputs no instruction writes and refuses the rest") {
    RunConfig cfg = test::numerics_config(test::small(2, 3));
    GeneratedKernel k = cfg.generate();
    num::DeviceMemory mem(k.trace, cfg.hw.sbuf.partitions, cfg.hw.sbuf.usable_bytes_per_partition);
    const HbmTensor& dy = *k.trace.find_tensor("dy");
    const HbmTensor& dx = *k.trace.find_tensor("dx");
    num::TypedArray a(dy.dtype, size_t(dy.bytes()) / size_t(dtype_size(dy.dtype)));
    std::memset(a.bytes.data(), 0x3f, a.bytes.size());
    CHECK(mem.borrow(dy.id, a.bytes.data(), a.bytes.size()));
    Region r;
    r.space = Space::Hbm;
    r.buffer = dy.id;
    r.row_lo = 1;
    r.row_hi = 2;
    r.byte_lo = 0;
    r.byte_hi = 2;
    const num::DeviceMemory& cmem = mem;
    CHECK(cmem.row(r, 0) == a.bytes.data() + dy.row_bytes);  // the lent bytes themselves
    CHECK_THROWS_AS(mem.row(r, 0), std::logic_error);          // never written through
    // An output is written by the kernel: not lent; it reads as NaN until written.
    CHECK_FALSE(mem.borrow(dx.id, a.bytes.data(), a.bytes.size()));
    CHECK(mem.hbm(dx.id).size() == dx.bytes());
    CHECK(mem.hbm(dx.id)[0] == 0xff);
    CHECK(mem.hbm(dx.id)[dx.bytes() - 1] == 0xff);
}
