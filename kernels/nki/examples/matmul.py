"""c = a_t^T @ b: a_t [K, M] and b [K, N] in HBM, c [M, N], K and M multiples of 128, N of 512.

Per (m, n) output tile, the K/128 partial products accumulate in one PSUM bank (`+=` into PSUM is
an accumulation group), then the tile is copied to SBUF and stored. Written for bnsim.
"""
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def matmul(a_t, b, n_tile=512):
    K, M = a_t.shape
    _, N = b.shape
    c = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm, name="c")
    P = nl.tile_size.pmax
    for m in nl.affine_range(M // P):
        for n in nl.affine_range(N // n_tile):
            acc = nl.zeros((P, n_tile), dtype=nl.float32, buffer=nl.psum)
            for k in nl.affine_range(K // P):
                lhs = nl.load(a_t[k * P:(k + 1) * P, m * P:(m + 1) * P])
                rhs = nl.load(b[k * P:(k + 1) * P, n * n_tile:(n + 1) * n_tile])
                acc += nisa.nc_matmul(lhs, rhs)
            res = nisa.tensor_copy(acc, dtype=nl.float32)
            nl.store(c[m * P:(m + 1) * P, n * n_tile:(n + 1) * n_tile], res)
    return c
