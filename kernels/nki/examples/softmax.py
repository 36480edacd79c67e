"""Row softmax of x [rows, cols] (rows a multiple of 128), one 128-row tile per iteration.

exp on the Scalar engine, the row sum and its reciprocal on the Vector engine, then a per-row
scale. (No max subtraction: a minimal example, not a numerically careful softmax.)
"""
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def softmax(x, rows_per_tile=128):
    rows, cols = x.shape
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm, name="out")
    for t in nl.affine_range(rows // rows_per_tile):
        r = slice(t * rows_per_tile, (t + 1) * rows_per_tile)
        tile = nl.load(x[r, :])
        e = nisa.activation(op=nl.exp, data=tile)
        total = nisa.tensor_reduce(nl.add, e, axis=1, dtype=nl.float32)
        inv = nisa.reciprocal(total)
        y = nisa.tensor_scalar(e, nl.multiply, inv)
        nl.store(out[r, :], y)
    return out
