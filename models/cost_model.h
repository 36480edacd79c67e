#pragma once
// Instruction durations from the hardware config's cost table, shared by the scheduling pass
// (its estimates) and the SystemC engines (what they execute). No number lives here: every
// figure comes from HwConfig.
//
//   engine instruction: cycles = fixed + B * per_broadcast + max(min, per_elem * N) at the
//                       engine clock, N = free elements per partition, B = per-partition scalar
//                       operands read, from the most specific cost row matching the
//                       instruction's cost key (engine, opcode, ALU ops, per-operand dtypes,
//                       source/destination memory, broadcast operands, accumulate/readout)
//                       — plus ACT's reduce-register costs.
//   DMA:                the trigger here; the DMA's own timing (descriptors, queues, latencies) is
//                       the DMA lifecycle's, models/dma_lifecycle.h.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/hw_config.h"
#include "trace/instruction.h"

namespace bnsim {

class Trace;

// The cost row of each instruction of one trace, by id, as CostModel::find picks it (kNoCostRow
// where none matches). It holds for any hardware whose cost table has the same keys in the same
// order (cost_keys_equal): what a sensitivity scenario changes is numbers, not keys. A caller
// that estimates one trace under many hardware configs makes it once (cost_rows) instead of
// matching every instruction against the table in every estimate.
using CostRows = std::vector<uint32_t>;
constexpr uint32_t kNoCostRow = ~uint32_t(0);

class CostModel {
public:
    // Indexes hw.costs by engine and opcode; the table must not change while the model lives.
    // With `rows` (the trace's, made from a table with the same keys), lookups take the row from
    // there: only instructions of that trace may be priced.
    explicit CostModel(const HwConfig& hw, const CostRows* rows = nullptr);

    const HwConfig& hw() const { return hw_; }

    // The cost row that prices an instruction: of the rows matching it, the one naming the most
    // key dimensions, the first of equals. entry() throws std::runtime_error if none matches.
    const CostEntry& entry(const Instruction& ins) const;
    const CostEntry* find(const Instruction& ins) const;
    // Index of entry(ins) in hw().costs.
    size_t row_index(const Instruction& ins) const { return size_t(&entry(ins) - hw_.costs.data()); }

    // Table cycles of an engine instruction (without ACT reduce-register extras).
    double table_cycles(const Instruction& ins) const;
    // Time an instruction occupies its engine's stream, in ns:
    //  compute: table cycles (+ ACT reduce-register extras) at the engine clock;
    //  DMA trigger: trigger_cycles on the issuing engine, plus software descriptor generation
    //  when the DGE path is software/GpSimd (the Pool stream generates the descriptors itself);
    //  sendrecv: the trigger only (the transfer is the link's).
    double engine_ns(const Instruction& ins) const;

    // What an engine's earlier instructions leave behind that prices its next one: the ACT
    // function table loaded (none before the first activation).
    struct EngineState {
        std::optional<ActFunc> act_table;
    };
    // engine_ns(ins) plus what the engine's state adds (an activation whose function differs
    // from the loaded table's pays act.table_switch_ns); updates the state. Callers that walk an
    // engine's stream in execution order use this one.
    double engine_ns(const Instruction& ins, EngineState& state) const;

    // Cycles after a compute instruction leaves its engine until its result is written
    // (engines.<e>.result_latency_cycles), in ns; 0 for DMAs and sendrecvs, whose completion the
    // DMA lifecycle and the link price. An instruction's end (ExecRecord::end_ns, the schedule's
    // est_end) is its occupancy end plus this.
    double result_latency_ns(const Instruction& ins) const {
        if (ins.is_dma() || ins.opcode == Opcode::SendRecv) return 0;
        return engine_latency_ns(ins.engine);
    }

    // How long after `producer`'s end a dependent `consumer` may start. On another engine: the
    // semaphore hand-off, semaphore.latency_ns, when the producer is an engine instruction (not a
    // DMA, whose completion semaphore the DMA lifecycle prices, nor a sendrecv). On the same
    // engine the pipeline keeps its instructions in order, so the consumer may issue as soon as
    // the producer has left the engine: its result latency before the producer's end (<= 0).
    // Inline: the list scheduler asks once per dependency edge.
    double handoff_ns(const Instruction& producer, const Instruction& consumer) const {
        return handoff_ns(producer, consumer.engine);
    }
    double handoff_ns(const Instruction& producer, Engine consumer_engine) const {
        if (producer.is_dma() || producer.opcode == Opcode::SendRecv) return 0;
        if (producer.engine == consumer_engine) return -engine_latency_ns(producer.engine);
        return hw_.semaphore.latency_ns;
    }

    // Transfer time of a sendrecv once both sides are ready (latency + bytes / bandwidth of the
    // path the transfer takes).
    double sendrecv_ns(const Instruction& ins) const;
    bool sendrecv_uses_gpsimd_path(const Instruction& ins) const;

    double cycles_to_ns(Engine e, double cycles) const { return cycles / hw_.engine(e).clock_ghz; }
    double engine_latency_ns(Engine e) const { return cycles_to_ns(e, hw_.engine(e).result_latency_cycles); }

private:
    const HwConfig& hw_;
    // Per (engine, opcode): the rows for it, most specific first and in table order among
    // equals, so the first that matches is the row entry() picks. The lookup runs several times
    // per instruction (scheduler, engines, report bounds) and the whole table is mostly rows of
    // other engines and opcodes.
    std::vector<uint32_t> candidates_[kNumEngines][kNumOpcodes];
    // Per row, a bit per DType: whether the row's `dtype` accepts that cost dtype ("any" or the
    // dtype's name), so a match needs no string compare.
    std::vector<uint8_t> dtype_mask_;
    const CostRows* rows_ = nullptr;
};

// Each instruction's row under `cost` (see CostRows).
CostRows cost_rows(const CostModel& cost, const Trace& trace);
// Whether two cost tables have the same keys (engine, opcode, dtype and the operand keys), row by
// row: then every instruction matches the same row in both.
bool cost_keys_equal(const std::vector<CostEntry>& a, const std::vector<CostEntry>& b);

// Whether a cost row's key matches an instruction, and how many key dimensions beyond engine
// and opcode the row names.
bool cost_row_matches(const CostEntry& row, const Instruction& ins);
int cost_row_specificity(const CostEntry& row);

// An instruction's broadcast operands: the per-partition scalar columns it reads.
int broadcast_operands(const Instruction& ins);


}  // namespace bnsim
