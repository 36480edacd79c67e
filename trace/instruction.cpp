#include "trace/instruction.h"

namespace bnsim {

std::string nki_source_location(const std::string& function, const Tag& tag) {
    if (tag.source) return tag.source;
    std::string s = function + ":";
    if (tag.phase > 0) s += "phase" + std::to_string(tag.phase) + ".";
    for (const char* c = tag.what; *c; ++c) s += *c == ' ' ? '_' : *c;
    return s;
}

const char* opcode_name(Opcode op) {
    switch (op) {
    case Opcode::DmaCopy: return "dma_copy";
    case Opcode::Activation: return "activation";
    case Opcode::TensorTensor: return "tensor_tensor";
    case Opcode::TensorScalar: return "tensor_scalar";
    case Opcode::ScalarTensorTensor: return "scalar_tensor_tensor";
    case Opcode::TensorReduce: return "tensor_reduce";
    case Opcode::TensorCopy: return "tensor_copy";
    case Opcode::NcStreamShuffle: return "nc_stream_shuffle";
    case Opcode::SendRecv: return "sendrecv";
    case Opcode::Memset: return "memset";
    case Opcode::Iota: return "iota";
    case Opcode::Reciprocal: return "reciprocal";
    case Opcode::NcMatmul: return "nc_matmul";
    case Opcode::NcTranspose: return "nc_transpose";
    }
    return "?";
}

std::optional<Opcode> opcode_from_name(const std::string& s) {
    for (int i = 0; i < kNumOpcodes; ++i)
        if (s == opcode_name(Opcode(i))) return Opcode(i);
    return std::nullopt;
}

const char* alu_name(AluOp op) {
    switch (op) {
    case AluOp::bypass: return "bypass";
    case AluOp::add: return "add";
    case AluOp::subtract: return "subtract";
    case AluOp::rsubtract: return "rsubtract";
    case AluOp::mult: return "mult";
    case AluOp::max: return "max";
    case AluOp::is_gt: return "is_gt";
    case AluOp::min: return "min";
    case AluOp::divide: return "divide";
    case AluOp::is_ge: return "is_ge";
    case AluOp::is_lt: return "is_lt";
    case AluOp::is_le: return "is_le";
    case AluOp::is_equal: return "is_equal";
    case AluOp::not_equal: return "not_equal";
    case AluOp::pow: return "pow";
    case AluOp::abs_max: return "abs_max";
    }
    return "?";
}

std::optional<AluOp> alu_from_name(const std::string& s) {
    for (int i = 0; i < kNumAluOps; ++i)
        if (s == alu_name(AluOp(i))) return AluOp(i);
    return std::nullopt;
}

const char* act_func_name(ActFunc f) {
    switch (f) {
    case ActFunc::copy: return "copy";
    case ActFunc::rsqrt: return "rsqrt";
    case ActFunc::exp: return "exp";
    case ActFunc::sigmoid: return "sigmoid";
    case ActFunc::relu: return "relu";
    case ActFunc::tanh: return "tanh";
    case ActFunc::gelu: return "gelu";
    case ActFunc::silu: return "silu";
    case ActFunc::square: return "square";
    case ActFunc::sqrt: return "sqrt";
    case ActFunc::log: return "log";
    case ActFunc::reciprocal: return "reciprocal";
    case ActFunc::softplus: return "softplus";
    case ActFunc::gelu_apprx_tanh: return "gelu_apprx_tanh";
    case ActFunc::abs: return "abs";
    case ActFunc::sign: return "sign";
    }
    return "?";
}

std::optional<ActFunc> act_func_from_name(const std::string& s) {
    for (int i = 0; i < kNumActFuncs; ++i)
        if (s == act_func_name(ActFunc(i))) return ActFunc(i);
    return std::nullopt;
}

const char* dge_name(DgeMode m) {
    switch (m) {
    case DgeMode::hardware: return "hardware";
    case DgeMode::software: return "software";
    case DgeMode::gpsimd: return "gpsimd";
    case DgeMode::none: return "none";
    }
    return "?";
}

std::optional<DgeMode> dge_from_name(const std::string& s) {
    for (int i = 0; i < kNumDgeModes; ++i)
        if (s == dge_name(DgeMode(i))) return DgeMode(i);
    return std::nullopt;
}

Operand sbuf_operand(uint8_t core, uint32_t p0, uint32_t p1, uint64_t addr, uint64_t bytes, DType dtype) {
    Operand o;
    o.region.space = Space::Sbuf;
    o.region.core = core;
    o.region.row_lo = p0;
    o.region.row_hi = p1;
    o.region.byte_lo = addr;
    o.region.byte_hi = addr + bytes;
    o.dtype = dtype;
    return o;
}

Region acc_reg_region(uint8_t core, uint32_t partitions) {
    Region r;
    r.space = Space::AccReg;
    r.core = core;
    r.row_lo = 0;
    r.row_hi = partitions;
    r.byte_lo = 0;
    r.byte_hi = 4;
    return r;
}

std::vector<Region> Instruction::reads() const {
    std::vector<Region> out;
    out.reserve(srcs.size() + 3);
    for_each_read([&](const Region& r) { out.push_back(r); });
    return out;
}

std::vector<Region> Instruction::writes() const {
    std::vector<Region> out;
    out.reserve(dsts.size() + 1);
    for_each_write([&](const Region& r) { out.push_back(r); });
    return out;
}

DType Instruction::cost_dtype() const {
    for (const auto& s : srcs)
        if (s.dtype != DType::bf16) return DType::fp32;
    for (const auto& d : dsts)
        if (d.dtype != DType::bf16) return DType::fp32;
    return DType::bf16;
}

}  // namespace bnsim
