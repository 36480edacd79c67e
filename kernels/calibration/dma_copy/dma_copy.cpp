// dma_copy: `count` copies of a [partitions, free] tile between HBM and SBUF (M1, M6, M7).
#include <algorithm>

#include "kernels/calibration/builder.h"
#include "kernels/calibration/calibration.h"

namespace bnsim::cal {

GeneratedKernel generate_dma_copy(const DmaCopyParams& p, const KernelTarget& t) {
    Builder b("dma_copy", t, p.partitions);
    if (p.free < 1) fail("dma_copy", "free", "must be at least 1");
    if (p.count < 1) fail("dma_copy", "count", "must be at least 1");
    const uint64_t tile_bytes = p.free * uint64_t(dtype_size(p.dtype));
    const uint64_t align = std::max<uint64_t>(t.sbuf_align, 1);
    const uint64_t slot_bytes = (tile_bytes + align - 1) / align * align;
    // As many SBUF slots as copies, or as fit: a copy reusing a slot waits for its previous user.
    const uint64_t fit = b.sbuf_free_bytes() / slot_bytes;
    if (fit == 0) b.sbuf_alloc(tile_bytes, "one [" + std::to_string(p.partitions) + ", " +
                                               std::to_string(p.free) + "] " + dtype_name(p.dtype) + " tile");
    const uint32_t slots = uint32_t(std::min<uint64_t>(p.count, fit));
    std::vector<uint64_t> slot_addr;
    for (uint32_t s = 0; s < slots; ++s) slot_addr.push_back(b.sbuf_alloc(tile_bytes, "tile slot"));

    const bool load = p.direction == Direction::hbm_to_sbuf;
    const uint64_t rows = uint64_t(p.count) * p.partitions;
    const uint32_t tensor = b.hbm_tensor(load ? "in" : "out", p.dtype, rows, p.free, load);
    for (uint32_t k = 0; k < p.count; ++k) {
        const Operand hbm = b.hbm(tensor, uint64_t(k) * p.partitions, uint64_t(k + 1) * p.partitions, 0, p.free);
        const Operand sb = Builder::sbuf(0, p.partitions, slot_addr[k % slots], p.free, p.dtype);
        const uint32_t id = load ? b.dma(hbm, sb, p.dge, p.queue, "copy in") : b.dma(sb, hbm, p.dge, p.queue, "copy out");
        b.measured(id);
    }
    auto& c = b.info()["calibration"];
    c["kernel"] = "dma_copy";
    c["tile"] = {p.partitions, p.free};
    c["dtype"] = dtype_name(p.dtype);
    c["direction"] = direction_name(p.direction);
    c["count"] = p.count;
    c["sbuf_slots"] = slots;
    c["bytes_per_partition"] = tile_bytes;
    c["bytes"] = tile_bytes * p.partitions * p.count;
    return b.finish();
}

}  // namespace bnsim::cal
