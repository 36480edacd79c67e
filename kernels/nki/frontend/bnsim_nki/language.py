"""nki.language as the frontend models it (the module a kernel imports as `nl`)."""

from . import core, ops
from .core import DTYPES, SBUF, PSUM, HBM, SHARED_HBM, PRIVATE_HBM, REC, fail
from .loops import affine_range, sequential_range, static_range, program_id, num_programs, program_ndim, spmd_dim, nc

sbuf, psum, hbm, shared_hbm, private_hbm = SBUF, PSUM, HBM, SHARED_HBM, PRIVATE_HBM
float32, bfloat16, float16, uint8, int32 = (DTYPES[n] for n in ("float32", "bfloat16", "float16", "uint8", "int32"))
tfloat32 = "tfloat32"

for _n, _f in ops.ALU.items():
    globals()[_n] = _f
for _n, _f in ops.ACT.items():
    globals()[_n] = _f
reciprocal = ops.reciprocal_fn
copy = ops.copy
load, store, transpose, matmul = ops.load, ops.store, ops.transpose, ops.matmul


class tile_size:
    """Tile limits; set from the hardware preset when a trace starts (core.Recorder.reset)."""
    pmax = 128
    psum_fmax = 512
    psum_bank_fmax = 512
    gemm_stationary_fmax = 128
    gemm_moving_fmax = 512
    bn_stats_fmax = 512
    psum_num_banks = 8
    sbuf_min_align = 16
    psum_min_align = 4
    total_available_sbuf_size = 196608


def _set_tile_size():
    tile_size.pmax = REC.partitions
    tile_size.psum_num_banks = REC.psum_bytes // REC.psum_bank
    tile_size.psum_fmax = tile_size.psum_bank_fmax = REC.psum_bank // 4
    tile_size.sbuf_min_align = REC.align
    tile_size.total_available_sbuf_size = REC.sbuf_bytes


def _shape_tuple(shape, call):
    if isinstance(shape, int):
        shape = (shape,)
    try:
        return tuple(int(s) for s in shape)
    except TypeError:
        fail(call, "a shape (a tuple of integers), got %r" % (shape,))


def ndarray(shape, dtype, buffer=None, name="", address=None, **kw):
    call = "nl.ndarray"
    shape = _shape_tuple(shape, call)
    dt = core.dtype_of(dtype, call)
    buf = core.buffer_of(buffer, call)
    if address is not None:
        if buf is not SBUF:
            fail(call, "address= only for an SBUF tile, got buffer %r" % (buf,))
        return _placed_tile(shape, dt, address, name, call)
    if buf in (SBUF, PSUM):
        return ops.new_tile(shape, dt, buf, call, name or None)
    return _hbm_tensor(shape, dt, buf, name, call)


def _placed_tile(shape, dt, address, name, call):
    """An SBUF tile at the kernel's own address (partition offset, byte offset per partition),
    honoured exactly: the allocator neither places nor frees it (ops.ASSUMPTIONS)."""
    try:
        p0, addr = (int(a) for a in address)
    except (TypeError, ValueError):
        fail(call, "address= (partition_offset, byte_offset), got %r" % (address,))
    if not shape or any(s < 1 for s in shape):
        fail(call, "a tile shape of positive sizes with a partition axis, got %s" % (list(shape),))
    free = dt.size
    for s in shape[1:]:
        free *= s
    if p0 < 0 or p0 + shape[0] > REC.partitions:
        fail(call, "partitions [%d, %d) inside the %d partitions (address=%r, shape %s)"
             % (p0, p0 + shape[0], REC.partitions, address, list(shape)))
    if addr < 0 or addr % REC.align:
        fail(call, "a byte offset that is a multiple of sbuf_min_align (%d), got %d" % (REC.align, addr))
    if addr + free > REC.sbuf_bytes:
        fail(call, "SBUF space: bytes [%d, %d) per partition are over the %d B usable per partition (SBUF overflow)"
             % (addr, addr + free, REC.sbuf_bytes))
    if addr + free > REC.alloc.sbuf_peak:  # (max is nl.max in this module)
        REC.alloc.sbuf_peak = addr + free
    t = core.Tile(shape, dt, SBUF, name or "%s@%s" % (call, core.caller_location()), addr, p0)
    return ops.full_view(t)


def _hbm_tensor(shape, dt, buf, name, call):
    site = (core.caller_location(), name)
    owner = REC.core if buf is PRIVATE_HBM or (buf is HBM and REC.num_cores > 1) else None
    key = (site, owner)
    t = REC.sites.get(key)
    if t is None:
        if any(s < 1 for s in shape):
            fail(call, "a tensor shape of positive sizes, got %s" % (list(shape),))
        base = name or "out%d" % len([x for x in REC.tensors if not x.is_input])
        t = core.HbmTensor(shape, dt, buf, base, owner, False)
        REC.add_tensor(t)
        REC.sites[key] = t
    return ops.full_view(t)


def zeros(shape, dtype, buffer=None, name="", **kw):
    call = "nl.zeros"
    v = ndarray(shape, dtype, buffer, name)
    if v.buffer is PSUM:
        v.storage.zero_pending = True
    elif v.buffer is SBUF:
        ops.memset(v, 0.0)
    return v


def full(shape, fill_value, dtype, buffer=None, name="", **kw):
    v = ndarray(shape, dtype, buffer, name)
    if v.buffer in (SBUF, PSUM):
        ops.memset(v, float(fill_value))
    return v


def arange(*args):
    if len(args) == 1:
        start, stop = 0, args[0]
    elif len(args) == 2:
        start, stop = args
    else:
        fail("nl.arange", "arange(stop) or arange(start, stop)")
    if not isinstance(start, int) or not isinstance(stop, int) or stop <= start:
        fail("nl.arange", "integers start < stop, got %r" % (args,))
    return core.IndexExpr(core.Arange(stop - start), 1, start)


class _MGrid:
    def __getitem__(self, key):
        if not isinstance(key, tuple):
            key = (key,)
        out = []
        for axis, k in enumerate(key):
            if not isinstance(k, slice) or k.step not in (None, 1):
                fail("nl.mgrid", "slices start:stop with step 1")
            start, stop = k.start or 0, k.stop
            out.append(core.IndexExpr(core.Arange(stop - start, axis, len(key)), 1, start))
        return out if len(out) > 1 else out[0]


mgrid = _MGrid()


def par_dim(n):
    return n


def device_print(*a, **k):
    pass


def __getattr__(name):
    fail("nl." + name, "a call bnsim's NKI frontend models (docs/nki-frontend.md lists them); nl.%s is not modelled" % name)
