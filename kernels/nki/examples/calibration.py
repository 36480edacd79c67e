"""The calibration microbenchmarks (configs/calibration, M1-M8) as NKI kernels: one DMA stream,
one Scalar-engine instruction, one Vector-engine instruction, each between the loads and stores
that feed it. Written for bnsim from the C++ generators' descriptions (kernels/calibration), so
the frontend's trace of each can be held against the generator's (tests/test_nki_calibration.cpp).

Tensor arguments are passed by name (`in` is a Python keyword, so they arrive as **tensors).
"""
import nki
import nki.isa as nisa
import nki.language as nl

DGE = {"hardware": nisa.dge_mode.hwdge, "software": nisa.dge_mode.swdge}
ALU = {"add": nl.add, "subtract": nl.subtract, "mult": nl.multiply, "max": nl.maximum}
ACT = {"copy": nl.copy, "exp": nl.exp, "sigmoid": nl.sigmoid, "rsqrt": nl.rsqrt, "relu": nl.relu}


def _round_up(n, align):
    return (n + align - 1) // align * align


@nki.jit
def dma_copy(partitions=4, free=4096, dtype="bfloat16", direction="hbm_to_sbuf", count=1, dge="hardware",
             queue=0, **tensors):
    """`count` copies of a [partitions, free] tile, each into the next of as many SBUF slots as fit."""
    dt = getattr(nl, dtype)
    slot = _round_up(free * (2 if dtype == "bfloat16" else 4), nl.tile_size.sbuf_min_align)
    slots = min(count, nl.tile_size.total_available_sbuf_size // slot)
    tiles = [nl.ndarray((partitions, free), dtype=dt, buffer=nl.sbuf) for _ in range(slots)]
    if direction == "hbm_to_sbuf":
        src = tensors["in"]
        for k in range(count):
            nisa.dma_copy(dst=tiles[k % slots], src=src[k * partitions:(k + 1) * partitions, :], dge_mode=DGE[dge],
                          name="measured copy in")
        return src
    out = nl.ndarray((count * partitions, free), dtype=dt, buffer=nl.shared_hbm, name="out")
    for k in range(count):
        nisa.dma_copy(dst=out[k * partitions:(k + 1) * partitions, :], src=tiles[k % slots], dge_mode=DGE[dge],
                      name="measured copy out")
    return out


@nki.jit
def activation(partitions=128, free=1024, dtype="float32", out_dtype=None, src="sbuf", func="exp", op="activation",
               broadcasts=0, reduce=False, readout=False, **tensors):
    """One ACT instruction over a [partitions, free] tile: an activation (with scale/bias columns,
    accumulating into the reduce registers, reading them out) or ACT's tensor_copy."""
    dt, out_dt = getattr(nl, dtype), getattr(nl, out_dtype or dtype)
    if src == "psum":
        data = nl.ndarray((partitions, free), dtype=dt, buffer=nl.psum)
    else:
        data = nl.ndarray((partitions, free), dtype=dt, buffer=nl.sbuf)
    result = nl.ndarray((partitions, free), dtype=out_dt, buffer=nl.sbuf)
    columns = [nl.ndarray((partitions, 1), dtype=nl.float32, buffer=nl.sbuf) for _ in range(broadcasts)]
    acc = nl.ndarray((partitions, 1), dtype=nl.float32, buffer=nl.sbuf) if readout else None
    out = nl.ndarray((partitions, free), dtype=out_dt, buffer=nl.shared_hbm, name="out")
    reduced = nl.ndarray((partitions, 1), dtype=nl.float32, buffer=nl.shared_hbm, name="reduced") if readout else None
    if src != "psum":
        nisa.dma_copy(dst=data, src=tensors["in"], dge_mode=nisa.dge_mode.hwdge)
    for col, name in zip(columns, ("scale", "bias")):
        nisa.dma_copy(dst=col, src=tensors[name], dge_mode=nisa.dge_mode.hwdge)
    if op == "tensor_copy":
        nisa.tensor_copy(dst=result, src=data, engine=nisa.scalar_engine, name="measured tensor_copy")
    else:
        nisa.activation(dst=result, op=ACT[func], data=data,
                        scale=columns[0] if broadcasts > 0 else 1.0, bias=columns[1] if broadcasts > 1 else None,
                        reduce_res=acc, reduce_cmd=nisa.reduce_cmd.reset_reduce if reduce else nisa.reduce_cmd.idle,
                        name="measured activation")
    nisa.dma_copy(dst=out, src=result, dge_mode=nisa.dge_mode.hwdge)
    if readout:
        nisa.dma_copy(dst=reduced, src=acc, dge_mode=nisa.dge_mode.hwdge)
    return out


@nki.jit
def vector_op(op="tensor_copy", alu="add", partitions=128, free=1024, dtype="float32", out_dtype=None, src="sbuf",
              **tensors):
    """One Vector-engine instruction over [partitions, free] tiles: a copy, a tensor_tensor, a
    tensor_scalar (alu with 1.0) or a reduce over the free axis."""
    dt, out_dt = getattr(nl, dtype), getattr(nl, out_dtype or dtype)
    out_elems = 1 if op == "tensor_reduce" else free
    if src == "psum":
        in0 = nl.ndarray((partitions, free), dtype=dt, buffer=nl.psum)
    else:
        in0 = nl.ndarray((partitions, free), dtype=dt, buffer=nl.sbuf)
    in1 = nl.ndarray((partitions, free), dtype=dt, buffer=nl.sbuf) if op == "tensor_tensor" else None
    result = nl.ndarray((partitions, out_elems), dtype=out_dt, buffer=nl.sbuf)
    out = nl.ndarray((partitions, out_elems), dtype=out_dt, buffer=nl.shared_hbm, name="out")
    if src != "psum":
        nisa.dma_copy(dst=in0, src=tensors["in0"], dge_mode=nisa.dge_mode.hwdge)
    if in1 is not None:
        nisa.dma_copy(dst=in1, src=tensors["in1"], dge_mode=nisa.dge_mode.hwdge)
    if op == "tensor_copy":
        nisa.tensor_copy(dst=result, src=in0, name="measured vector op")
    elif op == "tensor_tensor":
        nisa.tensor_tensor(dst=result, data1=in0, data2=in1, op=ALU[alu], name="measured vector op")
    elif op == "tensor_scalar":
        nisa.tensor_scalar(dst=result, data=in0, op0=ALU[alu], operand0=1.0, name="measured vector op")
    else:
        nisa.tensor_reduce(dst=result, op=ALU[alu], data=in0, axis=1, name="measured vector op")
    nisa.dma_copy(dst=out, src=result, dge_mode=nisa.dge_mode.hwdge)
    return out
