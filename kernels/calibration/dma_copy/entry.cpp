// dma_copy's registration: the `dma_copy:` section of a run config, e.g.
// `dma_copy: {partitions: 4, free: 4096, dtype: bfloat16, direction: hbm_to_sbuf, count: 1}`.
#include "kernels/calibration/calibration.h"
#include "kernels/calibration/config_keys.h"

namespace bnsim::cal {
namespace {

std::any parse(ConfigNode& top, const KernelTarget& t) {
    ConfigNode s = top.child("dma_copy");
    DmaCopyParams p;
    p.partitions = partitions_key(s, t);
    p.free = uint64_t(s.integer("free", 1, kMaxFree));
    p.dtype = dtype_key(s);
    p.direction = s.choice("direction", {"hbm_to_sbuf", "sbuf_to_hbm"}, "hbm_to_sbuf") == "hbm_to_sbuf"
                      ? Direction::hbm_to_sbuf
                      : Direction::sbuf_to_hbm;
    p.count = uint32_t(s.integer("count", 1, 1 << 20, 1));
    p.dge = s.choice("dge", {"hardware", "software"}, "hardware") == "hardware" ? DgeMode::hardware
                                                                               : DgeMode::software;
    p.queue = uint16_t(s.integer("queue", 0, t.dma_queues - 1, 0));
    s.finish();
    return p;
}

}  // namespace

const KernelEntry& dma_copy_entry() {
    static const KernelEntry e = [] {
        KernelEntry k;
        k.name = "dma_copy";
        k.description = "calibration: back-to-back DMA copies of a [partitions, free] tile (M1, M6)";
        k.parse = parse;
        k.generate = [](const std::any& p, const KernelTarget& t) {
            return generate_dma_copy(kernel_params<DmaCopyParams>(p), t);
        };
        k.summary_fields = calibration_summary_fields();
        return k;
    }();
    return e;
}

}  // namespace bnsim::cal
