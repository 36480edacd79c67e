// The registered kernels: one line per kernel, each entry defined in the kernel's own folder.
#include "kernels/kernel_entry.h"

namespace bnsim {
namespace bn {
const KernelEntry& kernel_entry();
}
namespace cal {
const KernelEntry& dma_copy_entry();
const KernelEntry& activation_entry();
const KernelEntry& vector_op_entry();
const KernelEntry& vector_add_entry();
}  // namespace cal
namespace nki {
const KernelEntry& nki_entry();
}
namespace tracefile {
const KernelEntry& trace_file_entry();
}

namespace {

const std::vector<const KernelEntry*>& registry() {
    static const std::vector<const KernelEntry*> entries = {
        &bn::kernel_entry(),
        // Calibration microbenchmarks (configs/calibration).
        &cal::dma_copy_entry(),
        &cal::activation_entry(),
        &cal::vector_op_entry(),
        &cal::vector_add_entry(),
        // Kernels from outside the C++ generators: NKI source, and trace files.
        &nki::nki_entry(),
        &tracefile::trace_file_entry(),
    };
    return entries;
}

}  // namespace

const KernelEntry* find_kernel(const std::string& name) {
    for (const KernelEntry* k : registry())
        if (k->name == name) return k;
    return nullptr;
}

std::vector<std::string> kernel_names() {
    std::vector<std::string> names;
    for (const KernelEntry* k : registry()) names.push_back(k->name);
    return names;
}

}  // namespace bnsim
