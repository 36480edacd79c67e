#pragma once
// Parameters of the calibration microbenchmarks: the small kernels behind the public trn2
// measurements (configs/calibration/measurements.yaml). A run config selects one with
// `kernel: dma_copy | activation | vector_op | vector_add` and a section of the same name.
#include <cstdint>

#include "numerics/random.h"
#include "trace/dtype.h"
#include "trace/instruction.h"
#include "trace/region.h"

namespace bnsim::cal {

enum class Direction : uint8_t { hbm_to_sbuf, sbuf_to_hbm };
const char* direction_name(Direction d);

// `count` back-to-back copies of a [partitions, free] tile (M1: one copy; M6: a stream of
// copies whose throughput is compared with the plateau). Copy k moves HBM rows
// [k*partitions, (k+1)*partitions) of one tensor; on the SBUF side the copies rotate over as
// many tile slots as fit, so only copies that reuse a slot are ordered by a dependency.
struct DmaCopyParams {
    uint32_t partitions = 4;
    uint64_t free = 4096;  // elements per partition
    DType dtype = DType::bf16;
    Direction direction = Direction::hbm_to_sbuf;
    uint32_t count = 1;
    DgeMode dge = DgeMode::hardware;
    uint16_t queue = 0;
};

// One instruction on ACT over a [partitions, free] tile: an activation, or ACT's tensor_copy
// (M8). The input is loaded by DMA into SBUF, or lives in PSUM (`src: psum`: left there by a
// matmul the kernel does not model, so nothing loads it). An activation may read `broadcasts`
// per-partition operands, scale then bias, each a [partitions, 1] fp32 column loaded by DMA
// (otherwise immediates 1 and 0); with `reduce` it also accumulates into ACT's reduce registers
// (reset first) and, with `readout`, reads them out into a [partitions, 1] fp32 column. The
// output (and the read-out column) is stored back.
struct ActivationParams {
    Opcode op = Opcode::Activation;  // Activation | TensorCopy
    uint32_t partitions = 128;
    uint64_t free = 1024;
    DType dtype = DType::fp32;      // the input's
    DType out_dtype = DType::fp32;  // the output's
    Space src = Space::Sbuf;        // Sbuf | Psum
    int broadcasts = 0;             // 0, 1 (scale) or 2 (scale and bias)
    ActFunc func = ActFunc::exp;
    bool reduce = false;
    bool readout = false;  // only with reduce
};

enum class VectorOp : uint8_t { tensor_copy, tensor_tensor, tensor_scalar, tensor_reduce };
const char* vector_op_name(VectorOp op);

// One Vector-engine (DVE) instruction over [partitions, free] input tiles loaded by DMA into
// SBUF, or living in PSUM (`src: psum`, as ActivationParams). tensor_reduce reduces the free
// axis into a [partitions, 1] column.
struct VectorOpParams {
    VectorOp op = VectorOp::tensor_copy;
    uint32_t partitions = 128;
    uint64_t free = 1024;
    DType dtype = DType::fp32;      // the inputs'
    DType out_dtype = DType::fp32;  // the output's
    Space src = Space::Sbuf;        // Sbuf | Psum
    AluOp alu = AluOp::add;  // unused by tensor_copy
};

// M4's vector add: two vectors of n elements viewed as [partitions, n/partitions], a loop over
// [partitions, free] tiles: DMA a tile, DMA b tile, the add on Vector, DMA the result out. One
// SBUF tile per tensor allocated inside the loop, so every iteration reuses the same addresses.
// op tensor_scalar is the per-partition-scalar form: the add reads b through the scalar
// operand path (column 0 of the b tile), same data movement, the cheaper DVE instruction.
struct VectorAddParams {
    uint64_t n = 25600;
    uint32_t partitions = 128;
    uint64_t free = 2;
    DType dtype = DType::fp32;
    Opcode op = Opcode::TensorTensor;  // TensorTensor | TensorScalar
    // How the DMAs' descriptors are made (`dge:`): hardware (a DGE issue per DMA; the default,
    // as neuronx-cc compiles for trn2, see vector_add.cpp), none (pre-computed, what a profile run
    // compiled with --disable-dge uses, nki-dge.rst) or software (generated on GpSimd).
    DgeMode dge = DgeMode::hardware;
    // Rotating buffers of each in-loop tile (`buffers:`), each with its own DMA queues: the NKI
    // frontend's nki.loop_buffers, the same compiler estimate (docs/nki-frontend.md).
    uint32_t buffers = 4;
    // bnsim validate's inputs (`numerics: {seed, a: {distribution, mean, spread}, b: ...}`).
    uint64_t seed = 1;
    num::Distribution a{num::Distribution::normal, 0.0, 1.0};
    num::Distribution b{num::Distribution::normal, 0.0, 1.0};
};

// DMA queues of the calibration kernels (one per tensor stream, as batch_norm_bwd does).
enum Queue : uint16_t { kQueueIn0 = 0, kQueueIn1 = 1, kQueueOut = 2, kQueueOut1 = 3 };

}  // namespace bnsim::cal
