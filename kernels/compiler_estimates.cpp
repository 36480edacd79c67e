#include "kernels/compiler_estimates.h"

namespace bnsim {

KernelEstimate loop_buffers_estimate(const std::string& key, int value) {
    return {key, double(value), 2, 8,
            "double buffering, the least that overlaps iterations (W1's transpose: a 61.9 us kernel at 2, about "
            "31.6 us on trn2)",
            "W1's transpose: 27.2 us at 8, under trn2's 31.6 us; little changes past 6 (27.5 us)"};
}

KernelEstimate rename_copies_estimate(const std::string& key, int value) {
    return {key, double(value), 8, 16, "W2's conv2d + maxpool (824 us on trn2): 792 us at 8 copies, 993 us at 6",
            "the most the loader takes; W2 unchanged from 8 to 16 (792 us)"};
}

}  // namespace bnsim
