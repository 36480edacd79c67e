#pragma once
// Run-config keys the calibration kernels share: partitions (up to the target's), dtype, an ALU
// operation from an allowed list; and the summary field every calibration kernel reports.
#include <string>
#include <vector>

#include "configfile/config_node.h"
#include "kernels/kernel_entry.h"
#include "trace/instruction.h"

namespace bnsim::cal {

// Largest free size (elements per partition) a calibration config may ask for.
constexpr int64_t kMaxFree = int64_t(1) << 24;

inline uint32_t partitions_key(ConfigNode& s, const KernelTarget& t) {
    return uint32_t(s.integer("partitions", 1, t.partitions));
}

inline DType dtype_key(ConfigNode& s) { return *dtype_from_name(s.choice("dtype", {"bfloat16", "float32"})); }

// The output's dtype, by default the input's.
inline DType out_dtype_key(ConfigNode& s, DType input) {
    return *dtype_from_name(s.choice("out_dtype", {"bfloat16", "float32"}, dtype_name(input)));
}

// Where the input tile lives: sbuf (loaded by DMA) or psum (left by a matmul, not loaded).
inline Space src_key(ConfigNode& s) { return s.choice("src", {"sbuf", "psum"}, "sbuf") == "psum" ? Space::Psum : Space::Sbuf; }

inline AluOp alu_key(ConfigNode& s, const std::vector<std::string>& allowed, const std::string& dflt) {
    const std::string a = s.choice("alu", allowed, dflt);
    for (AluOp op : {AluOp::add, AluOp::subtract, AluOp::mult, AluOp::max})
        if (a == alu_name(op)) return op;
    return AluOp::add;
}

inline std::vector<SummaryField> calibration_summary_fields() {
    return {{"measured_instructions", "instructions the calibration measurement times"}};
}

}  // namespace bnsim::cal
