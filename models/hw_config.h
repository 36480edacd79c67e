#pragma once
// The hardware parameters every model reads, parsed from configs/hw/<name>.yaml by sim/.
// Defaults live in the YAML (with their sources), not here: a field missing from the YAML is
// a config error, so no model can silently run on a made-up number. Every scalar field is
// declared once, with its dotted name, unit, kind and allowed range, in models/hw_params.h.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/param_provenance.h"
#include "trace/dtype.h"
#include "trace/engine.h"
#include "trace/instruction.h"

namespace bnsim {

struct SbufParams {
    int partitions = 0;
    uint64_t bytes_per_partition = 0;
    uint64_t usable_bytes_per_partition = 0;
    uint64_t min_align_bytes = 0;
    double access_latency_ns = 0;  // engine/DMA access overhead to SBUF
};

struct HbmParams {
    double bandwidth_gbps = 0;   // per stack (shared by the two cores of a pair), GB/s == B/ns
    int channels = 0;            // address interleave over this many channels
    uint64_t interleave_bytes = 0;
    double latency_ns = 0;       // access latency of one transfer
};

struct DmaParams {
    int engines_per_core = 0;
    int queues_per_engine = 0;
    int rows_per_engine = 0;                 // partition rows one engine moves of a [128, F] copy
    double engine_bandwidth_gbps = 0;        // plateau, per engine
    double descriptor_overhead_ns = 0;       // per descriptor on its engine, on top of bytes / bandwidth
    // An engine's strided rows of one DMA (not contiguous in HBM) share a descriptor (a packet)
    // up to this many bytes, so the overhead above is paid once per packet; 0: once per row.
    int packet_bytes = 0;
    // A queue of an engine starts a DMA's descriptors no sooner than this after it started the
    // previous DMA's (per-DMA fixed occupancy; other queues proceed meanwhile).
    double min_queue_occupancy_ns = 0;
    double issue_ns = 0;                     // descriptor generation by a hardware DGE
    double dispatch_ns = 0;                  // DGE to DMA engine start
    double completion_ns = 0;                // last byte to the semaphore the consumer waits on
    int hw_dge_units = 0;                    // hardware DGE blocks per core
    // 1: a hardware DGE DMA takes the block its issuing engine commands (Sync the first, ACT the
    // second), so one engine's DMAs are generated one after another; 0: the block that frees first.
    int dge_bound_to_issuer = 0;
    double sw_dge_issue_ns = 0;              // descriptor generation in software on GpSimd
    double trigger_cycles = 0;               // cost of a DMA trigger on the issuing engine's stream
    // 1: an engine's consecutive partition rows that are contiguous in HBM form one descriptor
    // (one transfer per engine for a contiguous [P, F] block); 0: one descriptor per row.
    int merge_contiguous_rows = 0;
};

struct EngineParams {
    double clock_ghz = 0;
    double min_ii_cycles = 0;  // shortest issue interval of one instruction
    // Cycles from an instruction leaving the engine (its cost-table time) until its result is
    // written: a pipeline latency the engine's next instruction does not wait for, its
    // consumers on other engines do.
    double result_latency_cycles = 0;
};

// One row of the instruction cost table:
//   cycles = fixed_cycles + B * cycles_per_broadcast + max(min_cycles, cycles_per_elem * N)
//            (+ ACT reduce-register extras)
// N is the free size (elements per partition), B the per-partition scalar operands the
// instruction reads (scale/bias columns). A row names its engine and opcode and may narrow
// its match by any subset of the other key dimensions below (unset = any); of the rows that
// match an instruction, the one naming the most dimensions wins, the first of equals
// (CostModel::entry).
struct CostEntry {
    std::string id;  // optional unique name, e.g. "dve.stt.bf16.subtract_subtract"
    Engine engine = Engine::Dve;
    Opcode opcode = Opcode::TensorCopy;
    std::string dtype = "any";                // bfloat16: every tensor operand bf16; float32: not; any
    std::optional<std::vector<AluOp>> alu;    // the ALU ops other than bypass, in order
    std::optional<std::vector<DType>> in;     // each tensor input's dtype (one entry: every input)
    std::optional<DType> out;                 // the first output's dtype
    std::optional<Space> src_mem;             // where every tensor input lives (sbuf | psum)
    std::optional<Space> dst_mem;             // where the first output lives
    std::optional<int> broadcasts;            // per-partition scalar columns the instruction reads
    std::optional<bool> accumulate;           // ACT: accumulates into the reduce registers
    std::optional<bool> readout;              // ACT: also writes the reduce registers out
    std::string perf_mode = "1x";
    double fixed_cycles = 0;
    double cycles_per_elem = 1;
    double min_cycles = 0;
    double cycles_per_broadcast = 0;          // per per-partition scalar operand read
    std::string source;                       // public source; may be empty for an estimate
    bool estimate = false;                    // no public figure: cycles_per_elem is assumed
    std::optional<UncertaintyRange> uncertainty;  // of cycles_per_elem, for every estimate
    std::string note;
};

struct ActParams {
    double accumulate_extra_cycles = 0;  // activation with a reduce into the accumulator
    double read_accumulator_ns = 0;      // reading the reduce registers out
    // Loading ACT's function table: paid by an activation whose function differs from the
    // previous activation's on the same engine (the first activation's table is loaded before
    // the kernel starts).
    double table_switch_ns = 0;
};

// Cross-engine synchronisation: a compute-engine instruction's result reaches a dependent
// instruction on another engine of its core (through a semaphore) this long after it finishes.
// A DMA's completion semaphore is the DMA lifecycle's (dma.completion_ns).
struct SemaphoreParams {
    double latency_ns = 0;
};

struct LinkParams {
    double latency_ns = 0;
    double bandwidth_gbps = 0;
    uint64_t gpsimd_path_max_free_elems = 0;  // sendrecv at most this many elements: GpSimd DMA
    double gpsimd_dma_bandwidth_gbps = 0;
};

struct LaunchParams {
    double fixed_ns = 0;  // per-kernel launch cost on the device
    // What a profile's total_time window holds besides the kernel: the on-device pre- and
    // postamble every engine runs in a profiled execution (not in a benchmark's latency).
    double profile_window_ns = 0;
};

struct NumericsParams {
    int scale_bias_operand_bits = 0;  // mantissa bits of the per-partition scale/bias path
};

struct HwConfig {
    std::string name;
    SbufParams sbuf;
    HbmParams hbm;
    DmaParams dma;
    EngineParams engines[kNumEngines];
    ActParams act;
    SemaphoreParams semaphore;
    std::vector<CostEntry> costs;
    LinkParams link;
    LaunchParams launch;
    NumericsParams numerics;
    // Source or estimate (with its uncertainty range) of each scalar parameter, by dotted name
    // (hw_params()); empty for a config built in code.
    std::map<std::string, ParamProvenance> provenance;

    const EngineParams& engine(Engine e) const { return engines[int(e)]; }
};

}  // namespace bnsim
