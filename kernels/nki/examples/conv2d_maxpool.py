"""Fused conv2d + maxpool: out[b, co, y, x] = max over a pool window of (sum over ci, taps of
W[co, ci, fy, fx] * X[b, ci, y + fy, x + fx]) + bias[co]. Channels are multiples of 128, one output
row fits a PSUM bank. The shape of the whole-kernel W2 row (trn2-whole-kernels.md: X
[1, 256, 224, 224], W [256, 256, 3, 3], float16); this is bnsim's own code of that algorithm.

The weights are loaded once and each 128 x 128 tap block transposed on the Tensor engine (so the
input channels sit on the partitions, as nc_matmul contracts over them). Per output row and
output-channel tile, the input-channel tiles and the taps accumulate in one PSUM bank.
"""
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def conv2d_maxpool(X, W, bias, pool_size=1):
    batch, c_in, height, width = X.shape
    c_out, _, fh, fw = W.shape
    P = nl.tile_size.pmax
    out_h, out_w = height - fh + 1, width - fw + 1
    pooled_h, pooled_w = out_h // pool_size, out_w // pool_size
    t_in, t_out = c_in // P, c_out // P
    Y = nl.ndarray((batch, c_out, pooled_h, pooled_w), dtype=X.dtype, buffer=nl.shared_hbm, name="Y")

    # weights[ci, co, tile_out, tile_in, fy, fx]: input channels on the partitions after the flip
    weights = nl.ndarray((P, P, t_out, t_in, fh, fw), dtype=W.dtype, buffer=nl.sbuf)
    for to in nl.affine_range(t_out):
        for ti in nl.affine_range(t_in):
            nisa.dma_copy(dst=weights[:, :, to, ti, :, :], src=W[to * P:(to + 1) * P, ti * P:(ti + 1) * P, :, :])
            for fy in nl.sequential_range(fh):
                for fx in nl.sequential_range(fw):
                    flipped = nl.transpose(weights[:, :, to, ti, fy, fx])
                    weights[:, :, to, ti, fy, fx] = nisa.tensor_copy(flipped)

    biases = nl.ndarray((P, t_out), dtype=bias.dtype, buffer=nl.sbuf)
    for to in nl.affine_range(t_out):
        nisa.dma_copy(dst=biases[:, to], src=bias[to * P:(to + 1) * P])

    # One input row at a time, refilled for every (input tile, filter row): the measured kernel's
    # layout, which leans on the compiler renaming the tile (rename.py) for its loads to run ahead.
    row = nl.ndarray((P, width), dtype=X.dtype, buffer=nl.sbuf)
    window = nl.ndarray((P, pool_size, out_w), dtype=X.dtype, buffer=nl.sbuf)
    for b in nl.sequential_range(batch):
        for to in nl.sequential_range(t_out):
            for py in nl.sequential_range(pooled_h):
                for k in nl.sequential_range(pool_size):
                    y = py * pool_size + k
                    acc = nl.zeros((P, out_w), dtype=nl.float32, buffer=nl.psum)
                    for ti in nl.sequential_range(t_in):
                        for fy in nl.sequential_range(fh):
                            nisa.dma_copy(dst=row, src=X[b, ti * P:(ti + 1) * P, y + fy, :])
                            for fx in nl.sequential_range(fw):
                                acc += nisa.nc_matmul(weights[:, :, to, ti, fy, fx], row[:, fx:fx + out_w])
                    window[:, k, :] = nisa.tensor_copy(acc)
                blocks = window.reshape((P, pool_size, pooled_w, pool_size))
                pooled = nisa.tensor_reduce(nl.max, blocks, axis=(1, 3))
                shifted = nisa.tensor_scalar(pooled, nl.add, biases[:, to])
                nisa.dma_copy(dst=Y[b, to * P:(to + 1) * P, py, :], src=shifted)
    return Y
