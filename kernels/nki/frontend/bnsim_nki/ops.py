"""The NKI calls the frontend models, each recorded as the one instruction it issues.

Both API generations are accepted: the `neuronxcc.nki` style, where a call returns its result
tile (`res = nisa.tensor_scalar(a, nl.add, b)`), and the `nki` style, where it writes `dst=`.
Choices the compiler makes and does not publish (an `nl.*` shorthand's lowering, the engine an
`engine=unknown` call runs on, DMA queues, buffer rotation) are declared in ASSUMPTIONS, which
the trace header carries, and in docs/nki-frontend.md.
"""

import math

from . import core
from .core import REC, SBUF, PSUM, View, Instruction, fail, dtype_of, masked

ASSUMPTIONS = {
    "DMA descriptors": "a DMA whose call names no dge_mode (nl.load, nl.store, nisa.dma_copy with dge_mode "
                       "unknown) has its descriptors pre-generated for its static access pattern (dge none), "
                       "unless the config's dge names hardware or software DGE. Evidence: M4's course "
                       "vector_add_stream (nisa.dma_copy, FREE_DIM 2, trn2 186 us) is 194 us with static "
                       "descriptors and 301 us with a hardware DGE issue per DMA",
    "dma queues": "one queue per (core, direction, HBM tensor) stream, numbered in order of first use, modulo the "
                  "16 queues of an engine; every per-channel column transfer of a core (one element per partition of a vector "
                  "tensor, [C] or [C, 1]: statistics and their gradients) shares one queue, numbered after the other streams "
                  "(the compiler's assignment is not published; bnsim's C++ generators give each stream its own "
                  "track and batch_norm_bwd gives its columns one queue)",
    "nl.ndarray address=": "(partition_offset, byte offset in each partition) places an SBUF tile exactly there, "
                           "outside the compiler's allocator (nki.language.ndarray's manual address, as "
                           "nl.alloc_tiles documents it); bounds-checked against the partitions and usable SBUF",
    "nisa.sendrecv": "one sendrecv on the GpSimd engine: reads the core's own src and the peer's src at the same "
                     "SBUF place (an SPMD kernel has the same layout on both cores), writes dst; dge gpsimd "
                     "(SBUF-to-SBUF on the GpSimd DMA path) for at most 256 free elements per partition, as "
                     "kernel-batch_norm_bwd.md states; larger transfers hardware DGE (estimate)",
    "nisa.activation reduce_cmd": "reset_reduce (or reset) starts the Scalar engine's reduce registers "
                                  "(trace accumulate reset), reduce/load_reduce adds (accumulate add); reduce_res= "
                                  "reads the registers out into a second destination (readout)",
    "private HBM": "an nl.private_hbm tensor is its core's scratch: written, it is still not a kernel output",
    "untouched HBM tensor": "a tensor no instruction accesses is viewed as [leading dimensions, last dimension] "
                            "rows (the view of accessed ones follows their accesses)",
    "engine unknown": "Vector engine (tensor_copy, tensor_scalar, tensor_tensor, memset); Tensor engine for nc_transpose",
    "nl.copy": "one nisa.tensor_copy on the Vector engine",
    "tensor_tensor broadcast": "a [P, 1] data2 is broadcast along data1's free axis in the one tensor_tensor "
                               "(course kernels rely on it on trn2; priced as a tensor_tensor of data1's size)",
    "nl.transpose": "one nisa.nc_transpose on the Tensor engine (into PSUM)",
    "nl.add etc. on tiles": "one tensor_tensor (two tiles) or tensor_scalar (a tile and a number) on the Vector engine",
    "nl.exp etc. on tiles": "one nisa.activation on the Scalar engine",
    "nl.sum/nl.max over axes": "one nisa.tensor_reduce on the Vector engine",
    "nl.zeros in PSUM": "no instruction: the first matmul into the tile overwrites instead of accumulating",
    "nl.zeros in SBUF": "one nisa.memset on the Vector engine",
    "loop buffers": "a tile allocated inside an affine_range/static_range body gets `loop_buffers` rotating "
                    "buffers (default 1, estimate, range 1-4: M4's two FREE_DIM rows fit 1 within -11%/+4%); "
                    "a sequential_range body gets 1",
}

ENGINE_NAMES = {"sync": "sync", "act": "act", "scalar": "act", "activation": "act", "vector": "dve", "dve": "dve",
                "gpsimd": "pool", "pool": "pool", "pe": "pe", "tensor": "pe", "unknown": None}


# ---------------------------------------------------------------------------------------------
# Operation names: nl.add, nl.exp, ... are both callables and the op arguments of ISA calls.

class AluFn:
    def __init__(self, name, trace_name):
        self.name, self.trace_name = name, trace_name

    def __repr__(self):
        return "nl." + self.name

    def __call__(self, x, y=None, axis=None, dtype=None, mask=None, keepdims=False, **kw):
        if axis is not None:
            return reduce(self, x, axis, dtype, mask, keepdims, "nl." + self.name)
        if y is None:
            fail("nl." + self.name, "two operands (or axis= for a reduction)")
        return binary(self.name, x, y, False, dtype, mask)


class ActFn:
    def __init__(self, name, trace_name):
        self.name, self.trace_name = name, trace_name

    def __repr__(self):
        return "nl." + self.name

    def __call__(self, x, dtype=None, mask=None, **kw):
        return _activation(None, self, x, None, 1.0, None, None, None, dtype, mask, "nl." + self.name)


ALU = {n: AluFn(n, t) for n, t in [
    ("add", "add"), ("subtract", "subtract"), ("multiply", "mult"), ("maximum", "max"), ("minimum", "min"),
    ("divide", "divide"), ("greater", "is_gt"), ("greater_equal", "is_ge"), ("less", "is_lt"),
    ("less_equal", "is_le"), ("equal", "is_equal"), ("not_equal", "not_equal"), ("power", "pow"),
    ("max", "max"), ("min", "min"), ("sum", "add"), ("bypass", "bypass"), ("abs_max", "abs_max")]}
ACT = {n: ActFn(n, t) for n, t in [
    ("exp", "exp"), ("tanh", "tanh"), ("sigmoid", "sigmoid"), ("relu", "relu"), ("gelu", "gelu"),
    ("silu", "silu"), ("rsqrt", "rsqrt"), ("sqrt", "sqrt"), ("log", "log"), ("square", "square"),
    ("softplus", "softplus"), ("gelu_apprx_tanh", "gelu_apprx_tanh"), ("abs", "abs"), ("sign", "sign"),
    ("identity", "copy"), ("copy", "copy")]}


def alu_name(op, call):
    if isinstance(op, AluFn):
        return op.trace_name
    if isinstance(op, str):
        if op in ALU:
            return ALU[op].trace_name
    if op is None:
        return "bypass"
    fail(call, "an ALU op such as nl.add, nl.subtract, nl.multiply, nl.maximum, got %r" % (op,))


def act_name(op, call):
    if isinstance(op, ActFn):
        return op.trace_name
    if op is copy or op is ALU["bypass"]:
        return "copy"
    if op is reciprocal_fn:
        return "reciprocal"
    fail(call, "an activation function such as nl.exp, nl.tanh, nl.copy, got %r" % (op,))


# ---------------------------------------------------------------------------------------------
# Instruction building.

def operand(view, call, what="operand"):
    if not isinstance(view, View):
        fail(call, "a tile or tensor for %s, got %r" % (what, view))
    return (view.access(), view.dtype)


def sbuf_side(view, call, what):
    if not isinstance(view, View) or view.buffer not in (SBUF, PSUM):
        fail(call, "%s in SBUF or PSUM, got %r" % (what, view))
    return view


def shape_of(view):
    """[partitions, free elements per partition] of a view."""
    dims = view.dims
    if not dims:
        return 1, 1
    free = 1
    for _, c in dims[1:]:
        free *= c
    return dims[0][1], free


_NAME = [None]   # the name= of the ISA call being recorded


def named(fn):
    """An ISA call whose `name=` becomes its instruction's name (tag.what), as NKI's `name`
    names an instruction in a profile. bnsim's calibration reads instructions named
    `measured...` as a measurement's instructions."""
    def call(*args, name=None, **kwargs):
        _NAME[0] = name if isinstance(name, str) and name else None
        try:
            return fn(*args, **kwargs)
        finally:
            _NAME[0] = None
    call.__name__, call.__doc__ = fn.__name__, fn.__doc__
    return call


def emit(engine, opcode, reads, writes, main, what, **fields):
    if _NAME[0]:
        what = _NAME[0]
    parts, free = shape_of(main)
    ins = Instruction(engine, opcode, reads, writes, fields, parts, free, what)
    REC.append(ins)
    return ins


def new_tile(shape, dtype, buffer, call, name=None):
    site = (core.caller_location(), call)
    shape = tuple(int(s) for s in shape)
    if any(s < 1 for s in shape):
        fail(call, "a tile shape of positive sizes, got %s" % (list(shape),))
    name = name or "%s@%s" % (call, site[0])
    return full_view(REC.alloc.tile(shape, dtype, buffer, site, call, name))


def full_view(storage):
    v = View(storage, 0, list(zip(storage.strides, storage.shape)))
    v.vars = [None] * len(storage.shape)
    return v


def result(ins, view):
    view.pending = ins
    return view


# The engines each call may run on here (those the hardware preset prices it on).
ENGINES_OF = {"nisa.tensor_copy": ("dve", "act", "pool"), "nl.copy": ("dve",), "assignment": ("dve",),
              "nisa.memset": ("dve", "pool"), "nisa.nc_transpose": ("pe", "dve")}


def engine_of(engine, default, call):
    if engine is None:
        return default
    name = getattr(engine, "name", engine)
    if name not in ENGINE_NAMES:
        fail(call, "engine= one of nisa.vector_engine, scalar_engine, gpsimd_engine, tensor_engine, got %r" % (engine,))
    eng = ENGINE_NAMES[name] or default
    allowed = ENGINES_OF.get(call, ("dve",))
    if eng not in allowed:
        fail(call, "an engine this call is modelled on (%s), got %r" % (", ".join(allowed), engine))
    return eng


def check_same_shape(a, b, call, what):
    if shape_of(a) != shape_of(b):
        fail(call, "%s of the same [partitions, free] shape, got %s and %s" % (what, list(a.shape), list(b.shape)))


def out_or_new(dst, shape, dtype, call, buffer=SBUF):
    if dst is not None:
        if not isinstance(dst, View):
            fail(call, "dst= a tile, got %r" % (dst,))
        return dst
    return new_tile(shape, dtype, buffer, call)


# ---------------------------------------------------------------------------------------------
# DMA.

def _dma(dst, src, dge, call, what):
    if not isinstance(dst, View) or not isinstance(src, View):
        fail(call, "dst and src tiles or tensors, got %r and %r" % (dst, src))
    if math.prod(src.shape) != math.prod(dst.shape):
        fail(call, "src and dst of the same number of elements, got %s and %s" % (list(src.shape), list(dst.shape)))
    hbm = src if not src.storage.on_chip else dst
    chip = dst if dst.storage.on_chip else src
    if dst.storage.on_chip is False and dst.storage.buffer is not core.PRIVATE_HBM:
        dst.storage.is_output = True  # a core's private HBM is its scratch, not a kernel output
    engine = "pool" if dge == "software" else "sync"
    key = ("store" if hbm is dst else "load", hbm.storage.name if not hbm.storage.on_chip else "sbuf")
    # A core's per-channel columns (one element per partition of a vector tensor, [C] or [C, 1]:
    # statistics and their gradients) share one queue; every other HBM stream has its own.
    column = (not hbm.storage.on_chip and sum(1 for d in hbm.storage.shape if d > 1) <= 1
              and shape_of(chip)[1] == 1)
    return emit(engine, "dma_copy", [operand(src, call)], [operand(dst, call)], chip, what,
                dge=dge, stream=REC.queue(key, column), queue=0)


DGE_NAMES = {"hwdge": "hardware", "swdge": "software", "none": "none", "unknown": None,
             "hardware": "hardware", "software": "software"}


def unnamed_dge():
    """The DGE mode of a DMA whose call names none (ASSUMPTIONS "DMA descriptors")."""
    return "none" if REC.dge == "auto" else REC.dge


def dge_of(mode, default, call):
    if mode is None:
        return default
    name = getattr(mode, "name", mode)
    if name in DGE_NAMES:
        return DGE_NAMES[name] or default
    fail(call, "dge_mode= one of nisa.dge_mode.hwdge, swdge, none, unknown, got %r" % (mode,))


def dma_copy(*args, dst=None, src=None, mask=None, dst_rmw_op=None, oob_mode=None, dge_mode=None, engine=None,
             priority=None, unique_indices=None, name=None):
    call = "nisa.dma_copy"
    if args:
        if len(args) > 2:
            fail(call, "dst and src (two positional arguments at most)")
        dst = args[0] if len(args) > 0 else dst
        src = args[1] if len(args) > 1 else src
    if dst is None or src is None:
        fail(call, "dst= and src=")
    if dst_rmw_op is not None:
        fail(call, "no dst_rmw_op (read-modify-write DMAs are not modelled)")
    _dma(masked(dst, mask), masked(src, mask), dge_of(dge_mode, unnamed_dge(), call), call, "dma_copy")


def load(src, mask=None, dtype=None, **kw):
    call = "nl.load"
    if not isinstance(src, View) or src.storage.on_chip:
        fail(call, "an HBM tensor to load, got %r" % (src,))
    src = masked(src, mask)
    dt = dtype_of(dtype, call) if dtype is not None else src.dtype
    shape = src.shape if src.ndim >= 1 else (1,)
    if src.ndim == 1:
        shape = (1, src.shape[0])
    tile = new_tile(shape, dt, SBUF, call)
    return result(_dma(tile, src, unnamed_dge(), call, "load"), tile)


def store(dst, value, mask=None, **kw):
    call = "nl.store"
    if not isinstance(dst, View) or dst.storage.on_chip:
        fail(call, "an HBM tensor to store into, got %r" % (dst,))
    value = sbuf_side(value, call, "value")
    _dma(masked(dst, mask), masked(value, mask), unnamed_dge(), call, "store")


# ---------------------------------------------------------------------------------------------
# Scalar engine.

def _scalar_arg(v, call, what):
    if v is None:
        return 0.0
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, View):
        if v.buffer not in (SBUF, PSUM):
            fail(call, "%s as a number or an SBUF [P, 1] column, got %r" % (what, v))
        return operand(v, call, what)
    fail(call, "%s as a number or an SBUF [P, 1] column, got %r" % (what, v))


REDUCE_CMDS = {"idle": None, "reset": "reset", "reduce": "add", "reset_reduce": "reset", "load_reduce": "add"}


def _activation(dst, op, data, bias, scale, reduce_op, reduce_res, reduce_cmd, dtype, mask, call):
    data = masked(sbuf_side(data, call, "data"), mask)
    func = act_name(op, call)
    dt = dtype_of(dtype, call) if dtype is not None else data.dtype
    out = out_or_new(dst, data.shape, dt, call)
    check_same_shape(out, data, call, "dst and data")
    fields = {"func": func, "scale": _scalar_arg(scale, call, "scale"), "bias": _scalar_arg(bias, call, "bias")}
    writes = [operand(out, call)]
    cmd = getattr(reduce_cmd, "name", reduce_cmd)
    if reduce_res is not None:
        if reduce_op is not None and alu_name(reduce_op, call) != "add":
            fail(call, "reduce_op=nl.add (the Scalar engine's reduce registers add), got %r" % (reduce_op,))
        writes.append(operand(reduce_res, call, "reduce_res"))
        fields["accumulate"] = REDUCE_CMDS.get(cmd) or "reset"
        fields["readout"] = True
    elif cmd not in (None, "idle"):
        if cmd not in REDUCE_CMDS:
            fail(call, "reduce_cmd= one of nisa.reduce_cmd.idle, reset, reduce, reset_reduce, got %r" % (reduce_cmd,))
        fields["accumulate"] = REDUCE_CMDS[cmd]
    ins = emit("act", "activation", [operand(data, call)], writes, out, call.split(".")[-1], **fields)
    return result(ins, out) if dst is None else None


def _act_positional(args, dst, op, data):
    """(dst, op, data) of an activation call of either API: the newer puts dst first."""
    args = list(args)
    if args and isinstance(args[0], View) and dst is None and len(args) >= 3:
        dst = args.pop(0)
    if args:
        op = args.pop(0)
    if args:
        data = args.pop(0)
    return dst, op, data


def activation(*args, dst=None, op=None, data=None, bias=None, scale=1.0, reduce_op=None, reduce_res=None,
               reduce_cmd=None, mask=None, dtype=None, engine=None, name=None):
    dst, op, data = _act_positional(args, dst, op, data)
    if op is None or data is None:
        fail("nisa.activation", "op and data")
    return _activation(dst, op, data, bias, scale, reduce_op, reduce_res, reduce_cmd, dtype, mask, "nisa.activation")


def activation_reduce(*args, dst=None, op=None, data=None, reduce_op=None, reduce_res=None, bias=None, scale=1.0,
                      mask=None, dtype=None, name=None):
    dst, op, data = _act_positional(args, dst, op, data)
    return _activation(dst, op, data, bias, scale, reduce_op or ALU["add"], reduce_res, "reset_reduce", dtype, mask,
                       "nisa.activation_reduce")


# ---------------------------------------------------------------------------------------------
# Vector engine (and GpSimd, where an engine= asks for it).

def _split_dst(args, n_old, dst):
    """New-style calls put dst first; an old-style call has n_old positional operands at most."""
    args = list(args)
    if dst is None and len(args) > n_old and isinstance(args[0], View):
        dst = args.pop(0)
    return args, dst


def tensor_tensor(*args, dst=None, data1=None, data2=None, op=None, dtype=None, mask=None, engine=None, name=None):
    call = "nisa.tensor_tensor"
    args, dst = _split_dst(args, 3, dst)
    vals = args + [None] * 3
    data1 = vals[0] if data1 is None else data1
    data2 = vals[1] if data2 is None else data2
    op = vals[2] if op is None else op
    a, b = masked(sbuf_side(data1, call, "data1"), mask), masked(sbuf_side(data2, call, "data2"), mask)
    pa, fa = shape_of(a)
    pb, fb = shape_of(b)
    # A [P, 1] second operand is broadcast along the free axis (ASSUMPTIONS "tensor_tensor broadcast").
    if (pa, fa) != (pb, fb) and not (pa == pb and fb == 1):
        fail(call, "data1 and data2 of the same [partitions, free] shape (or data2 a [P, 1] column), got %s and %s"
             % (list(a.shape), list(b.shape)))
    out = out_or_new(dst, a.shape, dtype_of(dtype, call) if dtype else a.dtype, call)
    ins = emit(engine_of(engine, "dve", call), "tensor_tensor", [operand(a, call), operand(b, call)],
               [operand(out, call)], out, "tensor_tensor", op=alu_name(op, call))
    return result(ins, out) if dst is None else None


def _rev(op, reverse, call):
    name = alu_name(op, call)
    if reverse and name == "subtract":
        return "rsubtract"
    if reverse and name not in ("add", "mult", "max", "min", "bypass"):
        fail(call, "reverse only with subtract or a commutative op, got %r" % (op,))
    return name


def tensor_scalar(*args, dst=None, data=None, op0=None, operand0=None, reverse0=False, op1=None, operand1=None,
                  reverse1=False, dtype=None, mask=None, engine=None, name=None):
    call = "nisa.tensor_scalar"
    args, dst = _split_dst(args, 7, dst)
    names = ["data", "op0", "operand0", "reverse0", "op1", "operand1", "reverse1"]
    given = dict(zip(names, args))
    data = given.get("data", data)
    op0, operand0 = given.get("op0", op0), given.get("operand0", operand0)
    reverse0, op1 = given.get("reverse0", reverse0), given.get("op1", op1)
    operand1, reverse1 = given.get("operand1", operand1), given.get("reverse1", reverse1)
    x = masked(sbuf_side(data, call, "data"), mask)
    out = out_or_new(dst, x.shape, dtype_of(dtype, call) if dtype else x.dtype, call)
    fields = {"op0": _rev(op0, reverse0, call), "scalar0": _scalar_arg(operand0, call, "operand0")}
    if op1 is not None:
        fields["op1"] = _rev(op1, reverse1, call)
        fields["scalar1"] = _scalar_arg(operand1, call, "operand1")
    ins = emit(engine_of(engine, "dve", call), "tensor_scalar", [operand(x, call)], [operand(out, call)], out,
               "tensor_scalar", **fields)
    return result(ins, out) if dst is None else None


def scalar_tensor_tensor(*args, dst=None, data=None, op0=None, operand0=None, op1=None, operand1=None,
                         reverse0=False, reverse1=False, dtype=None, mask=None, engine=None, name=None):
    call = "nisa.scalar_tensor_tensor"
    args, dst = _split_dst(args, 5, dst)
    given = dict(zip(["data", "op0", "operand0", "op1", "operand1"], args))
    data, op0 = given.get("data", data), given.get("op0", op0)
    operand0, op1, operand1 = given.get("operand0", operand0), given.get("op1", op1), given.get("operand1", operand1)
    x = masked(sbuf_side(data, call, "data"), mask)
    y = masked(sbuf_side(operand1, call, "operand1"), mask)
    check_same_shape(x, y, call, "data and operand1")
    out = out_or_new(dst, x.shape, dtype_of(dtype, call) if dtype else x.dtype, call)
    ins = emit(engine_of(engine, "dve", call), "scalar_tensor_tensor", [operand(x, call), operand(y, call)],
               [operand(out, call)], out, "scalar_tensor_tensor", op0=_rev(op0, reverse0, call),
               scalar=_scalar_arg(operand0, call, "operand0"), op1=_rev(op1, reverse1, call))
    return result(ins, out) if dst is None else None


def reduce(op, data, axis, dtype, mask, keepdims, call, dst=None, negate=False):
    x = masked(sbuf_side(data, call, "data"), mask)
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    if 0 in axes or any(not 0 < a < x.ndim for a in axes):
        fail(call, "free axes to reduce (1..%d; the partition axis 0 cannot be), got %r" % (x.ndim - 1, axis))
    shape = [c for i, c in enumerate(x.shape) if i not in axes or keepdims]
    shape = [1 if i in axes else c for i, c in enumerate(x.shape)] if keepdims else shape
    if len(shape) == 1:
        shape = [shape[0], 1]
    out = out_or_new(dst, shape, dtype_of(dtype, call) if dtype else x.dtype, call)
    ins = emit("dve", "tensor_reduce", [operand(x, call)], [operand(out, call)], x, "tensor_reduce",
               op=alu_name(op, call))
    return result(ins, out) if dst is None else None


def tensor_reduce(*args, dst=None, op=None, data=None, axis=None, dtype=None, mask=None, negate=False,
                  keepdims=False, name=None):
    args = list(args)
    if args and isinstance(args[0], View) and dst is None and len(args) >= 4:
        dst = args.pop(0)
    given = dict(zip(["op", "data", "axis"], args))
    op, data, axis = given.get("op", op), given.get("data", data), given.get("axis", axis)
    if axis is None:
        fail("nisa.tensor_reduce", "axis= the free axes to reduce")
    return reduce(op, data, axis, dtype, mask, keepdims, "nisa.tensor_reduce", dst, negate)


def _copy(dst, src, dtype, mask, engine, call):
    x = masked(sbuf_side(src, call, "src"), mask)
    out = out_or_new(dst, x.shape, dtype_of(dtype, call) if dtype else x.dtype, call)
    check_same_shape(out, x, call, "dst and src")
    ins = emit(engine_of(engine, "dve", call), "tensor_copy", [operand(x, call)], [operand(out, call)], out,
               "tensor_copy")
    return result(ins, out) if dst is None else None


def tensor_copy(*args, dst=None, src=None, dtype=None, mask=None, engine=None, name=None):
    args, dst = _split_dst(args, 1, dst)
    src = args[0] if args else src
    return _copy(dst, src, dtype, mask, engine, "nisa.tensor_copy")


def copy(src, dtype=None, mask=None, **kw):
    return _copy(None, src, dtype, mask, None, "nl.copy")


def memset(*args, dst=None, shape=None, value=None, dtype=None, mask=None, engine=None, name=None):
    call = "nisa.memset"
    args = list(args)
    if args and isinstance(args[0], View):
        dst = args.pop(0)
        value = args.pop(0) if args else value
    elif args:
        given = dict(zip(["shape", "value", "dtype"], args))
        shape, value, dtype = given.get("shape", shape), given.get("value", value), given.get("dtype", dtype)
    if value is None or not isinstance(value, (int, float)):
        fail(call, "value= a number")
    out = out_or_new(dst, shape or (1,), dtype_of(dtype, call) if dtype else None, call) if dst is not None or shape \
        else fail(call, "dst= or shape=")
    ins = emit(engine_of(engine, "dve", call), "memset", [], [operand(out, call)], out, "memset", value=float(value))
    return result(ins, out) if dst is None else None


def iota(*args, dst=None, expr=None, dtype=None, pattern=None, offset=0, channel_multiplier=0, mask=None, name=None):
    call = "nisa.iota"
    args = list(args)
    if args and isinstance(args[0], View):
        dst = args.pop(0)
    elif args:
        expr = args.pop(0)
        dtype = args.pop(0) if args else dtype
    if dst is None:
        if not isinstance(expr, core.IndexExpr) and not isinstance(expr, (list, tuple)):
            fail(call, "an nl.arange expression (or dst= with pattern=)")
        shape = expr_shape(expr, call)
        out = new_tile(shape, dtype_of(dtype or "int32", call), SBUF, call)
    else:
        out = dst
    ins = emit("pool", "iota", [], [operand(out, call)], out, "iota")
    return result(ins, out) if dst is None else None


def expr_shape(expr, call):
    exprs = expr if isinstance(expr, (list, tuple)) else [expr]
    ndim = max(e.var.ndim for e in exprs)
    shape = [1] * ndim
    for e in exprs:
        shape[e.var.axis] = max(shape[e.var.axis], e.var.n)
    if ndim == 1:
        shape = [shape[0], 1]
    return shape


def reciprocal_isa(*args, dst=None, data=None, dtype=None, mask=None, name=None):
    call = "nisa.reciprocal"
    args, dst = _split_dst(args, 1, dst)
    x = masked(sbuf_side(args[0] if args else data, call, "data"), mask)
    out = out_or_new(dst, x.shape, dtype_of(dtype, call) if dtype else x.dtype, call)
    ins = emit("dve", "reciprocal", [operand(x, call)], [operand(out, call)], out, "reciprocal")
    return result(ins, out) if dst is None else None


class _Reciprocal(ActFn):
    """nl.reciprocal: on a tile, the Vector engine's reciprocal; as an activation op, ACT's."""

    def __call__(self, x, dtype=None, mask=None, **kw):
        return reciprocal_isa(x, dtype=dtype, mask=mask)


reciprocal_fn = _Reciprocal("reciprocal", "reciprocal")


def nc_stream_shuffle(*args, src=None, dst=None, shuffle_mask=None, dtype=None, mask=None, name=None):
    call = "nisa.nc_stream_shuffle"
    if len(args) >= 2:
        src, dst = args[0], args[1]  # the older API's order; the newer names both by keyword
        if len(args) > 2:
            shuffle_mask = args[2]
    x, out = sbuf_side(src, call, "src"), sbuf_side(dst, call, "dst")
    emit("dve", "nc_stream_shuffle", [operand(x, call)], [operand(out, call)], x, "nc_stream_shuffle")


# ---------------------------------------------------------------------------------------------
# Collectives between the cores of a logical core.

def sendrecv(*args, src=None, dst=None, send_to_rank=None, recv_from_rank=None, pipe_id=0, name=None):
    """Sends src to core send_to_rank and receives recv_from_rank's src into dst (SBUF to SBUF)."""
    call = "nisa.sendrecv"
    given = dict(zip(["src", "dst", "send_to_rank", "recv_from_rank", "pipe_id"], args))
    src, dst = given.get("src", src), given.get("dst", dst)
    send_to_rank = given.get("send_to_rank", send_to_rank)
    recv_from_rank = given.get("recv_from_rank", recv_from_rank)
    pipe_id = given.get("pipe_id", pipe_id)
    x, out = sbuf_side(src, call, "src"), sbuf_side(dst, call, "dst")
    if x.buffer is not SBUF or out.buffer is not SBUF:
        fail(call, "src and dst in SBUF")
    check_same_shape(x, out, call, "src and dst")
    if recv_from_rank is None:
        recv_from_rank = send_to_rank
    for what, r in (("send_to_rank", send_to_rank), ("recv_from_rank", recv_from_rank)):
        if not isinstance(r, int) or not 0 <= r < REC.num_cores or r == REC.core:
            fail(call, "%s= another core of the logical core (0..%d, not %d), got %r"
                 % (what, REC.num_cores - 1, REC.core, r))
    if send_to_rank != recv_from_rank:
        fail(call, "send_to_rank and recv_from_rank the same peer (an exchange between two cores)")
    if not isinstance(pipe_id, int) or not 0 <= pipe_id <= 255:
        fail(call, "pipe_id= an integer 0..255, got %r" % (pipe_id,))
    own = x.access()
    peer = core.PeerAccess(own, recv_from_rank)
    dge = "gpsimd" if shape_of(x)[1] <= 256 else "hardware"
    emit("pool", "sendrecv", [(own, x.dtype), (peer, x.dtype)], [operand(out, call)], x, "sendrecv",
         peer=recv_from_rank, pipe=pipe_id, dge=dge)


# ---------------------------------------------------------------------------------------------
# Tensor engine.

def nc_transpose(*args, dst=None, data=None, dtype=None, mask=None, engine=None, name=None):
    call = "nisa.nc_transpose"
    args, dst = _split_dst(args, 1, dst)
    x = masked(sbuf_side(args[0] if args else data, call, "data"), mask)
    if x.ndim != 2:
        fail(call, "a 2-D tile [partitions, free], got %s" % (list(x.shape),))
    p, f = x.shape
    eng = engine_of(engine, "pe", call)
    if eng == "pe":
        if p > 128 or f > 128:
            fail(call, "a tile of at most [128, 128] on the Tensor engine, got %s" % (list(x.shape),))
        out = out_or_new(dst, (f, p), x.dtype, call, PSUM)
        if out.buffer is not PSUM:
            fail(call, "a PSUM destination on the Tensor engine, got %r" % (out,))
    elif eng == "dve":
        if p > 32 or f > 32:
            fail(call, "a tile of at most [32, 32] on the Vector engine, got %s" % (list(x.shape),))
        out = out_or_new(dst, (f, p), x.dtype, call, SBUF)
    else:
        fail(call, "engine= the Tensor or the Vector engine, got %r" % (engine,))
    if out.shape != (f, p):
        fail(call, "dst of shape %s (data %s transposed), got %s" % ([f, p], list(x.shape), list(out.shape)))
    ins = emit(eng, "nc_transpose", [operand(x, call)], [operand(out, call)], x, "nc_transpose")
    if eng == "pe":
        # A matmul of the data (stationary) against a [P, P] identity (moving): P columns stream.
        ins.partitions, ins.free = p, p
    return result(ins, out) if dst is None else None


def transpose(x, dtype=None, mask=None, **kw):
    return nc_transpose(x, dtype=dtype, mask=mask)


def nc_matmul(*args, dst=None, stationary=None, moving=None, is_stationary_onezero=False, is_moving_onezero=False,
              is_transpose=False, accumulate=None, tile_position=(), tile_size=(), perf_mode=None, mask=None,
              name=None):
    call = "nisa.nc_matmul"
    args, dst = _split_dst(args, 2, dst)
    given = dict(zip(["stationary", "moving"], args))
    st, mv = given.get("stationary", stationary), given.get("moving", moving)
    st = masked(sbuf_side(st, call, "stationary"), mask)
    mv = masked(sbuf_side(mv, call, "moving"), mask)
    if st.buffer is not SBUF or mv.buffer is not SBUF:
        fail(call, "stationary and moving tiles in SBUF")
    (k, m), (k2, n) = shape_of(st), shape_of(mv)
    if k != k2:
        fail(call, "stationary and moving with the same partition (contraction) size, got %d and %d" % (k, k2))
    limits = [("contraction (partitions)", k, REC.partitions), ("stationary free size", m, 128),
              ("moving free size", n, 512)]
    for what, v, lim in limits:
        if v > lim:
            fail(call, "a %s of at most %d, got %d (stationary %s, moving %s)" % (what, lim, v, list(st.shape), list(mv.shape)))
    if dst is None:
        out = new_tile((m, n), core.DTYPES["float32"], PSUM, call)
    else:
        out = dst
    if out.buffer is not PSUM:
        fail(call, "a PSUM destination, got %r" % (out,))
    if shape_of(out) != (m, n):
        fail(call, "dst of shape [%d, %d], got %s" % (m, n, list(out.shape)))
    acc = bool(accumulate) if accumulate is not None else (dst is not None and _psum_written(out))
    ins = emit("pe", "nc_matmul", [operand(st, call), operand(mv, call)], [operand(out, call)], mv, "nc_matmul",
               accumulate=acc)
    ins.partitions, ins.free = k, n
    _mark_written(out)
    return result(ins, out) if dst is None else None


def matmul(x, y, transpose_x=False, mask=None, **kw):
    if not transpose_x:
        fail("nl.matmul", "transpose_x=True (without it nl.matmul lowers to a transpose and a matmul, more than one "
                          "instruction; call nisa.nc_transpose and nisa.nc_matmul)")
    return nc_matmul(x, y, mask=mask)


def _psum_written(view):
    t = view.storage
    return getattr(t, "written", False) and not t.zero_pending


def _mark_written(view):
    view.storage.written = True
    view.storage.zero_pending = False


# ---------------------------------------------------------------------------------------------
# Assignment into views and +=.

def assign(dst, value):
    call = "assignment"
    if isinstance(value, View) and value.storage is dst.storage and value.offset == dst.offset and value.dims == dst.dims:
        return
    if isinstance(value, View) and value.pending is not None and value.storage.on_chip and value.pending.writes \
            and value.pending.writes[0][0].storage is value.storage:
        ins = value.pending
        if shape_of(dst) != shape_of(value) and math.prod(dst.shape) != math.prod(value.shape):
            fail(call, "a value of shape %s, got %s" % (list(dst.shape), list(value.shape)))
        if ins.opcode == "dma_copy" and dst.storage.on_chip is False:
            fail(call, "nl.store to write a tile to HBM")
        ins.writes[0] = operand(dst, call)
        if ins.opcode == "nc_matmul":
            ins.fields["accumulate"] = False
            _mark_written(dst)
        value.pending = None
        return
    if isinstance(value, View):
        if not dst.storage.on_chip:
            fail(call, "nl.store to write a tile to HBM")
        _copy(dst, value, None, None, None, "assignment")
        return
    if isinstance(value, (int, float)):
        memset(dst, float(value))
        return
    fail(call, "a tile or a number, got %r" % (value,))


def accumulate(dst, value):
    call = "+="
    if dst.buffer is PSUM and isinstance(value, View) and value.pending is not None \
            and value.pending.opcode == "nc_matmul":
        ins = value.pending
        if shape_of(dst) != shape_of(value):
            fail(call, "a matmul result of shape %s, got %s" % (list(dst.shape), list(value.shape)))
        ins.writes[0] = operand(dst, call)
        ins.fields["accumulate"] = _psum_written(dst)
        _mark_written(dst)
        value.pending = None
        return
    if isinstance(value, View):
        tensor_tensor(dst, dst, value, ALU["add"])
        return
    if isinstance(value, (int, float)):
        tensor_scalar(dst, dst, ALU["add"], float(value))
        return
    fail(call, "a tile or a number, got %r" % (value,))


def binary(op, a, b, reverse=False, dtype=None, mask=None):
    call = "nl." + op
    if isinstance(a, View) and isinstance(b, View):
        x, y = (b, a) if reverse else (a, b)
        return tensor_tensor(x, y, ALU[op], dtype=dtype, mask=mask)
    tile, num = (a, b) if isinstance(a, View) else (b, a)
    if not isinstance(tile, View) or not isinstance(num, (int, float)):
        fail(call, "tiles or numbers, got %r and %r" % (a, b))
    rev = reverse or not isinstance(a, View)
    return tensor_scalar(tile, ALU[op], float(num), reverse0=rev and op == "subtract", dtype=dtype, mask=mask)
