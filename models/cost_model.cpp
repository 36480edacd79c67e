#include "models/cost_model.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "models/act_reduce_registers.h"
#include "trace/trace.h"

namespace bnsim {

int broadcast_operands(const Instruction& ins) {
    return int(bool(ins.scalar[0].column)) + int(bool(ins.scalar[1].column));
}

// Whether the instruction's ALU ops other than bypass are, in order, `ops`.
static bool alu_ops_equal(const Instruction& ins, const std::vector<AluOp>& ops) {
    size_t k = 0;
    for (AluOp op : ins.alu) {
        if (op == AluOp::bypass) continue;
        if (k == ops.size() || ops[k] != op) return false;
        ++k;
    }
    return k == ops.size();
}

static uint8_t dtype_bit(DType d) { return uint8_t(1u << unsigned(d)); }

// The row's key dimensions beyond engine, opcode and dtype.
static bool cost_row_operands_match(const CostEntry& r, const Instruction& ins) {
    if (r.alu && !alu_ops_equal(ins, *r.alu)) return false;
    if (r.in) {
        if (ins.srcs.empty()) return false;
        if (r.in->size() != 1 && r.in->size() != ins.srcs.size()) return false;
        for (size_t i = 0; i < ins.srcs.size(); ++i)
            if (ins.srcs[i].dtype != (*r.in)[r.in->size() == 1 ? 0 : i]) return false;
    }
    if (r.out && (ins.dsts.empty() || ins.dsts[0].dtype != *r.out)) return false;
    if (r.src_mem) {
        if (ins.srcs.empty()) return false;
        for (const auto& s : ins.srcs)
            if (s.region.space != *r.src_mem) return false;
    }
    if (r.dst_mem && (ins.dsts.empty() || ins.dsts[0].region.space != *r.dst_mem)) return false;
    if (r.broadcasts && *r.broadcasts != broadcast_operands(ins)) return false;
    if (r.accumulate && *r.accumulate != (ins.accumulate != Accumulate::none)) return false;
    if (r.readout && *r.readout != ins.acc_readout) return false;
    return true;
}

bool cost_row_matches(const CostEntry& r, const Instruction& ins) {
    if (r.engine != ins.engine || r.opcode != ins.opcode) return false;
    if (r.dtype != "any" && r.dtype != dtype_name(ins.cost_dtype())) return false;
    return cost_row_operands_match(r, ins);
}

int cost_row_specificity(const CostEntry& r) {
    return int(r.dtype != "any") + int(bool(r.alu)) + int(bool(r.in)) + int(bool(r.out)) + int(bool(r.src_mem)) +
           int(bool(r.dst_mem)) + int(bool(r.broadcasts)) + int(bool(r.accumulate)) + int(bool(r.readout));
}

CostModel::CostModel(const HwConfig& hw, const CostRows* rows) : hw_(hw), rows_(rows) {
    if (rows_) return;  // every lookup is in the trace's rows
    dtype_mask_.reserve(hw.costs.size());
    for (uint32_t i = 0; i < hw.costs.size(); ++i) {
        const CostEntry& r = hw.costs[i];
        uint8_t mask = 0;
        for (DType d : {DType::bf16, DType::fp32, DType::u8, DType::fp16, DType::i32})
            if (r.dtype == "any" || r.dtype == dtype_name(d)) mask |= dtype_bit(d);
        dtype_mask_.push_back(mask);
        candidates_[size_t(r.engine)][size_t(r.opcode)].push_back(i);
    }
    for (auto& per_engine : candidates_)
        for (auto& rows : per_engine)
            std::stable_sort(rows.begin(), rows.end(), [&](uint32_t a, uint32_t b) {
                return cost_row_specificity(hw.costs[a]) > cost_row_specificity(hw.costs[b]);
            });
}

// The same row as scanning the whole table for the most specific match (the first of equals).
const CostEntry* CostModel::find(const Instruction& ins) const {
    if (rows_) {
        const uint32_t r = (*rows_)[ins.id];
        return r == kNoCostRow ? nullptr : &hw_.costs[r];
    }
    const auto& rows = candidates_[size_t(ins.engine)][size_t(ins.opcode)];
    if (rows.empty()) return nullptr;
    const uint8_t dt = dtype_bit(ins.cost_dtype());
    for (uint32_t i : rows) {
        const CostEntry& row = hw_.costs[i];
        if ((dtype_mask_[i] & dt) && cost_row_operands_match(row, ins)) return &row;
    }
    return nullptr;
}

const CostEntry& CostModel::entry(const Instruction& ins) const {
    const CostEntry* row = find(ins);
    if (!row)
        throw std::runtime_error(std::string("hardware config '") + hw_.name + "' has no cost row for engine " +
                                 engine_name(ins.engine) + ", opcode " + opcode_name(ins.opcode) + ", dtype " +
                                 dtype_name(ins.cost_dtype()) + " (instruction " + std::to_string(ins.id) + ", " +
                                 ins.tag.what + ")");
    return *row;
}

double CostModel::table_cycles(const Instruction& ins) const {
    const CostEntry& row = entry(ins);
    return row.fixed_cycles + row.cycles_per_broadcast * broadcast_operands(ins) +
           std::max(row.min_cycles, row.cycles_per_elem * double(ins.free_elems));
}

double CostModel::engine_ns(const Instruction& ins) const {
    switch (ins.opcode) {
    case Opcode::DmaCopy: {
        double ns = cycles_to_ns(ins.engine, hw_.dma.trigger_cycles);
        // Software DGE: the Pool stream generates the descriptors itself before triggering.
        if (ins.dma.dge == DgeMode::software || ins.dma.dge == DgeMode::gpsimd) ns += hw_.dma.sw_dge_issue_ns;
        return ns;
    }
    case Opcode::SendRecv:
        return cycles_to_ns(ins.engine, hw_.dma.trigger_cycles);
    default: {
        double ns = cycles_to_ns(ins.engine, table_cycles(ins));
        if (ins.opcode == Opcode::Activation) ns += ActReduceRegisters::extra_ns(hw_, ins);
        return ns;
    }
    }
}

double CostModel::engine_ns(const Instruction& ins, EngineState& state) const {
    double ns = engine_ns(ins);
    if (ins.opcode == Opcode::Activation) {
        if (state.act_table && *state.act_table != ins.act_func) ns += hw_.act.table_switch_ns;
        state.act_table = ins.act_func;
    }
    return ns;
}

bool CostModel::sendrecv_uses_gpsimd_path(const Instruction& ins) const {
    return ins.free_elems <= hw_.link.gpsimd_path_max_free_elems;
}

double CostModel::sendrecv_ns(const Instruction& ins) const {
    const double bytes = ins.srcs.empty() ? 0.0 : double(ins.srcs[0].region.bytes());
    const double bw = sendrecv_uses_gpsimd_path(ins) ? hw_.link.gpsimd_dma_bandwidth_gbps : hw_.link.bandwidth_gbps;
    return hw_.link.latency_ns + bytes / bw;
}

CostRows cost_rows(const CostModel& cost, const Trace& trace) {
    CostRows rows(trace.size(), kNoCostRow);
    for (const auto& in : trace.instructions())
        if (const CostEntry* r = cost.find(in)) rows[in.id] = uint32_t(r - cost.hw().costs.data());
    return rows;
}

bool cost_keys_equal(const std::vector<CostEntry>& a, const std::vector<CostEntry>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
        const CostEntry &x = a[i], &y = b[i];
        if (x.engine != y.engine || x.opcode != y.opcode || x.dtype != y.dtype || x.alu != y.alu || x.in != y.in ||
            x.out != y.out || x.src_mem != y.src_mem || x.dst_mem != y.dst_mem || x.broadcasts != y.broadcasts ||
            x.accumulate != y.accumulate || x.readout != y.readout)
            return false;
    }
    return true;
}

}  // namespace bnsim
