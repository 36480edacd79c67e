#pragma once
// What a kernel generator needs to know about the machine: only the facts the NKI kernel itself
// reads at trace time (SBUF size and alignment, partitions, number of cores). Kernels never see
// the timing models.
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernels/kernel_summary.h"
#include "trace/dependents.h"
#include "trace/trace.h"

namespace bnsim {

struct KernelTarget {
    int partitions = 128;
    uint64_t sbuf_usable_bytes = 0;  // per partition
    uint64_t sbuf_align = 16;
    int num_cores = 1;               // physical cores of the logical core (LNC)
    int dma_queues = 16;             // DMA queues per engine a kernel may assign its transfers to

    // Equal targets plan the same trace: hardware that differs only in timing parameters reuses it.
    bool operator==(const KernelTarget& o) const {
        return partitions == o.partitions && sbuf_usable_bytes == o.sbuf_usable_bytes && sbuf_align == o.sbuf_align &&
               num_cores == o.num_cores && dma_queues == o.dma_queues;
    }
};

// A user-facing problem with the kernel's inputs or memory config (not a bug in bnsim).
struct KernelError : std::runtime_error {
    explicit KernelError(const std::string& m) : std::runtime_error(m) {}
};

// A choice of the kernel's toolchain this trace depends on that is not published (the NKI
// compiler's buffer depth): a run-config key, its value, and the range its evidence spans, each
// end with its reason. Uncertainty bands vary it as they vary the hardware's estimates; the
// values are whole numbers.
struct KernelEstimate {
    std::string key;  // as --set takes it: "nki.loop_buffers"
    double value = 0;
    double lo = 0, hi = 0;
    std::string lo_why, hi_why;
};

// A generated kernel: its trace plus a description of the choices it made (memory config,
// sharding...) for reports: `info` as the trace report prints it, `summary` the typed fields
// its entry declares.
struct GeneratedKernel {
    Trace trace;
    nlohmann::ordered_json info = nlohmann::ordered_json::object();
    KernelSummary summary;
    // Races the kernel's own source allows, found by its producer (the NKI frontend: a dependency
    // between iterations of an affine_range loop, which the compiler may reorder); one line each,
    // naming both source lines. `bnsim validate` reports them.
    std::vector<std::string> source_races;
    // What a calibration measurement times (bnsim calibrate's instruction_ns, dma_efficiency):
    // the instructions the kernel marks as measured, in program order, and the bytes they move
    // (0: not given). Empty for kernels that mark none.
    std::vector<uint32_t> measured_instructions;
    uint64_t measured_bytes = 0;
    // The estimates above that change this kernel's trace (a buffer depth only where tiles
    // rotate); empty for kernels with none.
    std::vector<KernelEstimate> estimates;
    // The trace's reverse dependency edges, where its producer keeps them with a kernel it hands
    // out again and again (a traced NKI kernel kept in memory: W2's 353k edges); shared by the
    // copies. Null: whoever needs them derives them from the trace.
    std::shared_ptr<const Dependents> dependents;
};

}  // namespace bnsim
