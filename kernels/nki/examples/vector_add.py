"""Elementwise c = a + b over a [128, n] view, one tile of `free` columns per loop iteration.

The loop M4 measured on trn2 (trn2-measurements.md): with free=2 the kernel is bound by DMA fixed
costs, with free=200 by the launch. Written for bnsim; `bnsim run configs/nki/vector_add.yaml`.
"""
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def vector_add(a, b, free=2):
    c = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm, name="c")
    cols = a.shape[1]
    for i in nl.affine_range(cols // free):
        lo, hi = i * free, (i + 1) * free
        a_tile = nl.load(a[:, lo:hi])
        b_tile = nl.load(b[:, lo:hi])
        c_tile = nisa.tensor_tensor(a_tile, b_tile, nl.add)
        nl.store(c[:, lo:hi], c_tile)
    return c
