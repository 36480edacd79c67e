#pragma once
// One ISA-level instruction of a kernel's trace, as the NKI ISA names it.
//
// Operands are positional per opcode (see the table below); every operand names the
// memory Region it touches, which is all the dependency pass and the models need.
//
//   opcode                 srcs                     dsts              scalars / params
//   dma_copy               [src]                    [dst]             dma.{dge, queue}
//   activation             [data]                   [out, (readout)]  scalar[0]=scale, scalar[1]=bias,
//                                                                     act_func, accumulate
//   tensor_tensor          [in0, in1]               [out]             alu[0]
//   tensor_scalar          [in]                     [out]             (in alu[0] scalar[0]) alu[1] scalar[1]
//   scalar_tensor_tensor   [in0, in1]               [out]             (in0 alu[0] scalar[0]) alu[1] in1
//   tensor_reduce          [in]                     [out]             alu[0] over the free axis
//   tensor_copy            [in]                     [out]
//   nc_stream_shuffle      [in]                     [out]             partitions moved in->out
//   sendrecv               [send, peer's send]      [recv]            peer_core, pipe
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trace/dtype.h"
#include "trace/engine.h"
#include "trace/region.h"

namespace bnsim {

enum class Opcode : uint8_t {
    DmaCopy,
    Activation,
    TensorTensor,
    TensorScalar,
    ScalarTensorTensor,
    TensorReduce,
    TensorCopy,
    NcStreamShuffle,
    SendRecv,
};
constexpr int kNumOpcodes = 9;

const char* opcode_name(Opcode op);
std::optional<Opcode> opcode_from_name(const std::string& s);

// ALU operations of the Vector/Scalar engines. `rsubtract` is b - a (NKI's reverse flag).
enum class AluOp : uint8_t { bypass, add, subtract, rsubtract, mult, max, is_gt };
const char* alu_name(AluOp op);

enum class ActFunc : uint8_t { copy, rsqrt, exp, sigmoid, relu };
const char* act_func_name(ActFunc f);
std::optional<ActFunc> act_func_from_name(const std::string& s);

// How a DMA's descriptors are generated: by one of the hardware DGE blocks (commanded from
// Sync or ACT), by software on GpSimd (required for casting transfers), or by the GpSimd
// engine's own DMA path (small SBUF-to-SBUF transfers such as sendrecv).
enum class DgeMode : uint8_t { hardware, software, gpsimd };
const char* dge_name(DgeMode m);

// ACT reduce-register protocol: reset then accumulate, accumulate, and read the registers out.
enum class Accumulate : uint8_t { none, reset_accumulate, accumulate };

// An operand: a region read or written with an element type.
struct Operand {
    Region region;
    DType dtype = DType::fp32;
    // elements per row the operand covers (region bytes / dtype size)
    uint64_t elems_per_row() const { return region.bytes_per_row() / dtype_size(dtype); }
};

// A per-partition scalar: an immediate, or a [P, 1] fp32 column in SBUF.
struct ScalarArg {
    float imm = 0.0f;
    std::optional<Operand> column;
};

struct DmaInfo {
    DgeMode dge = DgeMode::hardware;
    uint16_t queue = 0;
};

// Where in the kernel an instruction sits: used by reports and the timeline only.
struct Tag {
    int8_t phase = 0;        // 0 = none / setup, 1, 2
    int32_t unit = -1;       // walk index of the work unit, -1 outside the walk
    int16_t slot = -1;       // multibuffer slot, -1 if single buffered
    int16_t ctile = -1;      // channel tile
    const char* what = "";   // short role, e.g. "load dy", "dbeta readout"
};

struct Instruction {
    uint32_t id = 0;  // index in the trace (program order, all cores)
    uint8_t core = 0;
    Engine engine = Engine::Sync;
    Opcode opcode = Opcode::TensorCopy;

    std::vector<Operand> srcs;
    std::vector<Operand> dsts;
    ScalarArg scalar[2];
    AluOp alu[2] = {AluOp::bypass, AluOp::bypass};
    ActFunc act_func = ActFunc::copy;
    Accumulate accumulate = Accumulate::none;
    bool acc_readout = false;  // activation also writes its reduce registers to dsts[1]
    DmaInfo dma;
    uint8_t peer_core = 0;  // sendrecv
    uint8_t pipe = 0;       // sendrecv

    // Shape of the operation: partitions x elements per partition of its main operand.
    uint32_t partitions = 0;
    uint64_t free_elems = 0;

    Tag tag;
    std::vector<uint32_t> deps;  // derived: ids this instruction must wait for (same core)

    bool is_dma() const { return opcode == Opcode::DmaCopy; }
    // All regions read / written, including scalar columns and the ACT reduce registers.
    std::vector<Region> reads() const;
    std::vector<Region> writes() const;
    // The dtype the hardware computes in for cost purposes: bf16 when every tensor operand is
    // bf16 (the fast performance modes), fp32 otherwise.
    DType cost_dtype() const;
};

// The region of ACT's reduce registers on a core, used as a pseudo-operand.
Region acc_reg_region(uint8_t core, uint32_t partitions);

}  // namespace bnsim
