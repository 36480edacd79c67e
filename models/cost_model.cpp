#include "models/cost_model.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "models/act_reduce_registers.h"

namespace bnsim {

int broadcast_operands(const Instruction& ins) {
    return int(bool(ins.scalar[0].column)) + int(bool(ins.scalar[1].column));
}

static std::vector<AluOp> alu_ops(const Instruction& ins) {
    std::vector<AluOp> ops;
    for (AluOp op : ins.alu)
        if (op != AluOp::bypass) ops.push_back(op);
    return ops;
}

bool cost_row_matches(const CostEntry& r, const Instruction& ins) {
    if (r.engine != ins.engine || r.opcode != ins.opcode) return false;
    if (r.dtype != "any" && r.dtype != dtype_name(ins.cost_dtype())) return false;
    if (r.alu && *r.alu != alu_ops(ins)) return false;
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

int cost_row_specificity(const CostEntry& r) {
    return int(r.dtype != "any") + int(bool(r.alu)) + int(bool(r.in)) + int(bool(r.out)) + int(bool(r.src_mem)) +
           int(bool(r.dst_mem)) + int(bool(r.broadcasts)) + int(bool(r.accumulate)) + int(bool(r.readout));
}

const CostEntry* CostModel::find(const Instruction& ins) const {
    const CostEntry* best = nullptr;
    int best_spec = -1;
    for (const auto& row : hw_.costs) {
        if (!cost_row_matches(row, ins)) continue;
        const int spec = cost_row_specificity(row);
        if (spec > best_spec) best = &row, best_spec = spec;
    }
    return best;
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

double CostModel::semaphore_ns(const Instruction& producer, const Instruction& consumer) const {
    if (producer.is_dma() || producer.opcode == Opcode::SendRecv || producer.engine == consumer.engine) return 0;
    return hw_.semaphore.latency_ns;
}

bool CostModel::sendrecv_uses_gpsimd_path(const Instruction& ins) const {
    return ins.free_elems <= hw_.link.gpsimd_path_max_free_elems;
}

double CostModel::sendrecv_ns(const Instruction& ins) const {
    const double bytes = ins.srcs.empty() ? 0.0 : double(ins.srcs[0].region.bytes());
    const double bw = sendrecv_uses_gpsimd_path(ins) ? hw_.link.gpsimd_dma_bandwidth_gbps : hw_.link.bandwidth_gbps;
    return hw_.link.latency_ns + bytes / bw;
}

}  // namespace bnsim
