"""nki.isa as the frontend models it (the module a kernel imports as `nisa`)."""

from . import ops
from .core import fail

N = ops.named  # `name=` on an ISA call names its instruction (the trace's tag.what)
dma_copy, activation, activation_reduce = N(ops.dma_copy), N(ops.activation), N(ops.activation_reduce)
tensor_tensor, tensor_scalar = N(ops.tensor_tensor), N(ops.tensor_scalar)
scalar_tensor_tensor, tensor_reduce = N(ops.scalar_tensor_tensor), N(ops.tensor_reduce)
tensor_copy, memset, iota = N(ops.tensor_copy), N(ops.memset), N(ops.iota)
reciprocal, nc_stream_shuffle = N(ops.reciprocal_isa), N(ops.nc_stream_shuffle)
nc_transpose, nc_matmul, sendrecv = N(ops.nc_transpose), N(ops.nc_matmul), N(ops.sendrecv)


class _Named:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "nisa." + self.name


class _Enum:
    def __init__(self, prefix, names):
        for n in names:
            setattr(self, n, _Named(n))


dge_mode = _Enum("dge_mode", ["unknown", "swdge", "hwdge", "none"])
reduce_cmd = _Enum("reduce_cmd", ["idle", "reset", "reduce", "reset_reduce", "load_reduce"])
engine = _Enum("engine", ["unknown", "tensor", "vector", "scalar", "gpsimd", "sync", "activation", "dma"])
oob_mode = _Enum("oob_mode", ["error", "skip"])
matmul_perf_mode = _Enum("matmul_perf_mode", ["none", "double_row", "double_row_gen3"])
tensor_engine, vector_engine, scalar_engine, gpsimd_engine = engine.tensor, engine.vector, engine.scalar, engine.gpsimd
unknown_engine = engine.unknown


def __getattr__(name):
    fail("nisa." + name, "a call bnsim's NKI frontend models (docs/nki-frontend.md lists them); nisa.%s is not modelled" % name)
