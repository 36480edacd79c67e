#include "trace/trace_json.h"

#include <ostream>

namespace bnsim {

using json = nlohmann::ordered_json;

json region_json(const Trace& trace, const Region& r) {
    json j;
    j["space"] = space_name(r.space);
    if (r.space == Space::Hbm) {
        j["tensor"] = trace.tensor(r.buffer).name;
        // The issuing core: it tells apart the cores' private staging tensors of one name.
        j["core"] = r.core;
        j["rows"] = {r.row_lo, r.row_hi};
    } else {
        j["core"] = r.core;
        j["partitions"] = {r.row_lo, r.row_hi};
    }
    j["bytes"] = {r.byte_lo, r.byte_hi};
    return j;
}

static json operand_json(const Trace& trace, const Operand& o) {
    json j = region_json(trace, o.region);
    j["dtype"] = dtype_name(o.dtype);
    return j;
}

static json scalar_json(const Trace& trace, const ScalarArg& s) {
    if (s.column) return operand_json(trace, *s.column);
    return s.imm;
}

json instruction_json(const Trace& trace, const Instruction& ins) {
    json j;
    j["id"] = ins.id;
    j["core"] = ins.core;
    j["engine"] = engine_name(ins.engine);
    j["opcode"] = opcode_name(ins.opcode);
    j["partitions"] = ins.partitions;
    j["free"] = ins.free_elems;
    json srcs = json::array(), dsts = json::array();
    for (const auto& s : ins.srcs) srcs.push_back(operand_json(trace, s));
    for (const auto& d : ins.dsts) dsts.push_back(operand_json(trace, d));
    j["reads"] = srcs;
    j["writes"] = dsts;
    switch (ins.opcode) {
    case Opcode::DmaCopy:
        j["dge"] = dge_name(ins.dma.dge);
        j["queue"] = ins.dma.queue;
        break;
    case Opcode::Activation:
        j["func"] = act_func_name(ins.act_func);
        j["scale"] = scalar_json(trace, ins.scalar[0]);
        j["bias"] = scalar_json(trace, ins.scalar[1]);
        if (ins.accumulate != Accumulate::none)
            j["accumulate"] = ins.accumulate == Accumulate::reset_accumulate ? "reset" : "add";
        if (ins.acc_readout) j["readout"] = true;
        break;
    case Opcode::TensorScalar:
        j["op0"] = alu_name(ins.alu[0]);
        j["scalar0"] = scalar_json(trace, ins.scalar[0]);
        j["op1"] = alu_name(ins.alu[1]);
        j["scalar1"] = scalar_json(trace, ins.scalar[1]);
        break;
    case Opcode::ScalarTensorTensor:
        j["op0"] = alu_name(ins.alu[0]);
        j["scalar"] = scalar_json(trace, ins.scalar[0]);
        j["op1"] = alu_name(ins.alu[1]);
        break;
    case Opcode::TensorTensor:
    case Opcode::TensorReduce:
        j["op"] = alu_name(ins.alu[0]);
        break;
    case Opcode::SendRecv:
        j["peer"] = ins.peer_core;
        j["pipe"] = ins.pipe;
        j["dge"] = dge_name(ins.dma.dge);
        break;
    case Opcode::Memset:
        j["value"] = ins.scalar[0].imm;
        break;
    case Opcode::NcMatmul:
        j["accumulate"] = ins.psum_accumulate;
        break;
    default: break;
    }
    json tag;
    tag["phase"] = ins.tag.phase;
    if (ins.tag.unit >= 0) tag["unit"] = ins.tag.unit;
    if (ins.tag.slot >= 0) tag["slot"] = ins.tag.slot;
    if (ins.tag.ctile >= 0) tag["ctile"] = ins.tag.ctile;
    tag["what"] = ins.tag.what;
    tag["nki_source_location"] = nki_source_location(trace.kernel, ins.tag);
    j["tag"] = tag;
    j["deps"] = std::vector<uint32_t>(ins.deps.begin(), ins.deps.end());
    return j;
}

void write_trace_jsonl(const Trace& trace, std::ostream& out, const nlohmann::ordered_json& header_extra,
                       const InstructionAnnotator& annotate) {
    json head;
    head["format"] = kTraceFormat;
    head["version"] = kTraceFormatVersion;
    head["kernel"] = trace.kernel;
    head["cores"] = trace.num_cores;
    json tensors = json::array();
    for (const auto& t : trace.tensors()) {
        json tj;
        tj["id"] = t.id;
        tj["name"] = t.name;
        tj["dtype"] = dtype_name(t.dtype);
        tj["shape"] = t.shape;
        tj["rows"] = t.rows;
        tj["row_bytes"] = t.row_bytes;
        tj["addr"] = t.base_addr;
        if (t.owner_core >= 0) tj["owner_core"] = t.owner_core;
        if (t.is_input) tj["input"] = true;
        if (t.is_output) tj["output"] = true;
        tensors.push_back(tj);
    }
    head["tensors"] = tensors;
    head["instructions"] = trace.size();
    for (const auto& [k, v] : header_extra.items()) head[k] = v;
    out << head.dump() << '\n';
    for (const auto& ins : trace.instructions()) {
        json j = instruction_json(trace, ins);
        if (annotate) annotate(ins, j);
        out << j.dump() << '\n';
    }
}

}  // namespace bnsim
