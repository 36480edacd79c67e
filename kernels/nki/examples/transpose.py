"""out = x^T for a 2-D float32 matrix, tile by tile through the Tensor engine.

Each 128 x 128 tile goes HBM -> SBUF (dma_copy), through the PE array into PSUM (nc_transpose),
back to SBUF (nl.copy, as the measured kernel copies) and out to its transposed place in HBM (dma_copy). The shape of the
whole-kernel W1 row (trn2-whole-kernels.md); this is bnsim's own code.
"""
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def transpose(x, tile=128):
    rows, cols = x.shape
    out = nl.ndarray((cols, rows), dtype=x.dtype, buffer=nl.shared_hbm, name="out")
    for i in nl.affine_range(rows // tile):
        for j in nl.affine_range(cols // tile):
            block = nl.ndarray((tile, tile), dtype=x.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=block, src=x[i * tile:(i + 1) * tile, j * tile:(j + 1) * tile])
            flipped = nisa.nc_transpose(block)
            back = nl.copy(flipped, dtype=x.dtype)
            nisa.dma_copy(dst=out[j * tile:(j + 1) * tile, i * tile:(i + 1) * tile], src=back)
    return out
