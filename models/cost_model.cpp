#include "models/cost_model.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "models/act_reduce_registers.h"

namespace bnsim {

const CostEntry* CostModel::find(Engine e, Opcode op, DType cost_dtype) const {
    const std::string dt = dtype_name(cost_dtype);
    for (const auto& row : hw_.costs)
        if (row.engine == e && row.opcode == op && (row.dtype == "any" || row.dtype == dt)) return &row;
    return nullptr;
}

const CostEntry& CostModel::entry(const Instruction& ins) const {
    const CostEntry* row = find(ins.engine, ins.opcode, ins.cost_dtype());
    if (!row)
        throw std::runtime_error(std::string("hardware config '") + hw_.name + "' has no cost row for engine " +
                                 engine_name(ins.engine) + ", opcode " + opcode_name(ins.opcode) + ", dtype " +
                                 dtype_name(ins.cost_dtype()) + " (instruction " + std::to_string(ins.id) + ", " +
                                 ins.tag.what + ")");
    return *row;
}

double CostModel::table_cycles(const Instruction& ins) const {
    const CostEntry& row = entry(ins);
    return row.fixed_cycles + std::max(row.min_cycles, row.cycles_per_elem * double(ins.free_elems));
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

bool CostModel::sendrecv_uses_gpsimd_path(const Instruction& ins) const {
    return ins.free_elems <= hw_.link.gpsimd_path_max_free_elems;
}

double CostModel::sendrecv_ns(const Instruction& ins) const {
    const double bytes = ins.srcs.empty() ? 0.0 : double(ins.srcs[0].region.bytes());
    const double bw = sendrecv_uses_gpsimd_path(ins) ? hw_.link.gpsimd_dma_bandwidth_gbps : hw_.link.bandwidth_gbps;
    return hw_.link.latency_ns + bytes / bw;
}

}  // namespace bnsim
