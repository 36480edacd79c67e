"""The recording side of bnsim's NKI frontend: tensors, views, allocation and the recorder.

A kernel written against `nki` / `neuronxcc.nki` runs here with tensor descriptors instead of
data. Every ISA call appends one instruction to the Recorder; nothing is computed. Accesses
are kept as access patterns (an element offset and [stride, count] pairs, the form the
hardware's own descriptors take) and become the trace file's rectangular regions only when the
trace is written, once every access to each HBM tensor is known (see `hbm_view`).
"""

import math
import os
import sys

# ---------------------------------------------------------------------------------------------
# Errors: one line naming the kernel file and line, the call and what was expected.

FRONTEND_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class KernelSourceError(Exception):
    """A kernel that breaks a rule of the hardware or of the frontend, located in its source."""

    def __init__(self, call, message, location=None):
        self.call = call
        self.message = message
        self.location = location or caller_location()
        super().__init__(self.line())

    def line(self):
        call = self.call + ": " if self.call else ""
        return "%s: %s%s" % (self.location, call, self.message)


_IN_FRONTEND = {}   # code file name -> whether it is one of the frontend's own files
_SHOWN = {}         # code file name -> the name a location shows


def caller_location():
    """file:line of the innermost frame outside the frontend (the kernel's own call)."""
    f = sys._getframe(1)
    while f is not None:
        name = f.f_code.co_filename
        inside = _IN_FRONTEND.get(name)
        if inside is None:
            inside = _IN_FRONTEND[name] = os.path.abspath(name).startswith(FRONTEND_DIR + os.sep)
        if not inside:
            shown = _SHOWN.get(name)
            if shown is None:
                shown = _SHOWN[name] = REC.display_name(name)
            return "%s:%d" % (shown, f.f_lineno)
        f = f.f_back
    return "?"


def fail(call, message):
    raise KernelSourceError(call, message)


# ---------------------------------------------------------------------------------------------
# Element types. Those the simulator models; others are refused where they are first used.

class DType:
    def __init__(self, name, size):
        self.name, self.size = name, size

    def __repr__(self):
        return "nl." + self.name


DTYPES = {
    "float32": DType("float32", 4),
    "bfloat16": DType("bfloat16", 2),
    "float16": DType("float16", 2),
    "uint8": DType("uint8", 1),
    "int32": DType("int32", 4),
}
# Names NKI has that no model here covers: refused with a clear message when used.
UNMODELLED_DTYPES = ["int8", "int16", "uint16", "uint32", "tfloat32", "float8_e4m3", "float8_e5m2",
                     "float8_e4m3fn", "bool_", "bool"]


def dtype_of(d, call):
    if isinstance(d, DType):
        return d
    # numpy's dtypes and scalar types (np.float32, np.dtype('float16')) where numpy is present.
    name = d if isinstance(d, str) else getattr(d, "name", None) or getattr(d, "__name__", None)
    if name in DTYPES:
        return DTYPES[name]
    aliases = {"fp32": "float32", "bf16": "bfloat16", "fp16": "float16", "float": "float32"}
    if name in aliases:
        return DTYPES[aliases[name]]
    fail(call, "a dtype bnsim models (float32, bfloat16, float16, uint8, int32), got %r" % (d,))


# ---------------------------------------------------------------------------------------------
# Memory kinds.

class Buffer:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "nl." + self.name

    # nki.compiler.sbuf.alloc-style placements: `nl.sbuf.view(...)` etc. are not modelled, but a
    # buffer is callable as NKI's allocation helpers are (the result is the buffer itself).
    def __call__(self, *a, **k):
        return self


SBUF, PSUM, HBM, SHARED_HBM, PRIVATE_HBM = (Buffer(n) for n in ("sbuf", "psum", "hbm", "shared_hbm", "private_hbm"))


def buffer_of(b, call):
    if b is None:
        return SBUF
    if isinstance(b, Buffer):
        return b
    if isinstance(b, str) and b in ("sbuf", "psum", "hbm", "shared_hbm", "private_hbm"):
        return {"sbuf": SBUF, "psum": PSUM, "hbm": HBM, "shared_hbm": SHARED_HBM, "private_hbm": PRIVATE_HBM}[b]
    fail(call, "buffer= one of nl.sbuf, nl.psum, nl.hbm, nl.shared_hbm, nl.private_hbm, got %r" % (b,))


# ---------------------------------------------------------------------------------------------
# Index expressions: nl.arange / nl.mgrid values and affine combinations of them.

class Arange:
    """One index variable: values 0..n-1 placed on result axis `axis` of `ndim` axes."""
    _next = 0

    def __init__(self, n, axis=0, ndim=1):
        self.n, self.axis, self.ndim = n, axis, ndim
        Arange._next += 1
        self.id = Arange._next


class IndexExpr:
    """offset + coef * var (one variable; sums of variables are not modelled)."""

    def __init__(self, var, coef=1, offset=0):
        self.var, self.coef, self.offset = var, coef, offset

    # Placement as numpy would do it: ar[:, None] puts the values on axis 0 of 2.
    def __getitem__(self, key):
        if not isinstance(key, tuple):
            key = (key,)
        axis, ndim, seen = 0, len(key), False
        for i, k in enumerate(key):
            if isinstance(k, slice) and not seen:
                axis, seen = i, True
            elif k is not None and not isinstance(k, slice):
                fail("nl.arange", "indexing an arange with ':' and None only")
        v = Arange(self.var.n, axis, ndim)
        return IndexExpr(v, self.coef, self.offset)

    def _lin(self, other, sign):
        if isinstance(other, IndexExpr):
            fail("index expression", "an affine index of one nl.arange (a sum of two is not modelled)")
        if not isinstance(other, int):
            fail("index expression", "an integer offset, got %r" % (other,))
        return IndexExpr(self.var, self.coef, self.offset + sign * other)

    def __add__(self, o):
        return self._lin(o, 1)

    __radd__ = __add__

    def __sub__(self, o):
        return self._lin(o, -1)

    def __rsub__(self, o):
        return IndexExpr(self.var, -self.coef, o - self.offset)

    def __mul__(self, o):
        if not isinstance(o, int):
            fail("index expression", "an integer scale, got %r" % (o,))
        return IndexExpr(self.var, self.coef * o, self.offset * o)

    __rmul__ = __mul__

    def __neg__(self):
        return IndexExpr(self.var, -self.coef, -self.offset)

    # Comparisons build masks: each bounds the variable's count.
    def _bound(self, op, c):
        return Mask({self.var.id: (self, op, c)})

    def __lt__(self, c):
        return self._bound("<", c)

    def __le__(self, c):
        return self._bound("<=", c)

    def __gt__(self, c):
        return self._bound(">", c)

    def __ge__(self, c):
        return self._bound(">=", c)

    def values(self):
        return (self.offset + self.coef * i for i in range(self.var.n))


class Mask:
    """A conjunction of bounds on index variables (`mask=(i_p < n) & (i_f < m)`)."""

    def __init__(self, bounds):
        self.bounds = dict(bounds)

    def __and__(self, other):
        b = dict(self.bounds)
        b.update(other.bounds)
        return Mask(b)

    def count(self, var):
        """How many leading values of var the mask keeps (an affine bound keeps a prefix)."""
        if var.id not in self.bounds:
            return var.n
        e, op, c = self.bounds[var.id]
        keep = 0
        for i in range(var.n):
            v = e.offset + e.coef * i
            ok = {"<": v < c, "<=": v <= c, ">": v > c, ">=": v >= c}[op]
            if ok:
                keep = i + 1
            else:
                break
        return keep


# ---------------------------------------------------------------------------------------------
# Storage: an HBM tensor or an on-chip tile, and views of either.

class Storage:
    """What a view points into: HBM (a tensor of the trace) or on-chip memory (SBUF or PSUM)."""

    def __init__(self, shape, dtype, buffer, name):
        self.shape, self.dtype, self.buffer, self.name = tuple(shape), dtype, buffer, name
        # The affine_range loops open where it was allocated (their bodies own it: races.py).
        self.affine_owner = REC.affine_ids
        self.elems = 1
        for d in shape:
            self.elems *= d
        self.strides = []
        s = 1
        for d in reversed(self.shape):
            self.strides.insert(0, s)
            s *= d

    @property
    def on_chip(self):
        return self.buffer in (SBUF, PSUM)


class HbmTensor(Storage):
    def __init__(self, shape, dtype, buffer, name, core, is_input):
        super().__init__(shape, dtype, buffer, name)
        self.core = core              # owner core for private HBM, None when shared
        self.is_input = is_input
        self.is_output = False
        self.id = None
        self.accesses = []            # every access pattern, to choose the [rows, row_bytes] view
        self.view_row_elems = None


class Tile(Storage):
    """An SBUF or PSUM allocation: partitions [p0, p0 + shape[0]), bytes [addr, addr + free bytes)."""

    def __init__(self, shape, dtype, buffer, name, addr, p0=0):
        super().__init__(shape, dtype, buffer, name)
        self.addr, self.p0 = addr, p0
        self.partition_stride = self.strides[0] if self.shape else 1
        self.zero_pending = False     # nl.zeros in PSUM: the first matmul into it overwrites
        self.buffer_slot = 0          # which of its loop site's rotating buffers it is (Allocator.tile)
        self.renamable = False        # the allocator's, in one buffer: rename.py may give it copies


class Access:
    """offset (elements) + [[stride, count], ...] over a storage, one pair per result axis."""

    def __init__(self, storage, offset, pattern):
        self.storage, self.offset, self.pattern = storage, offset, tuple(pattern)

    def count(self):
        n = 1
        for _, c in self.pattern:
            n *= c
        return n


class PeerAccess(Access):
    """An access to the same place on another core's SBUF (the peer's side of a sendrecv)."""

    def __init__(self, access, core):
        super().__init__(access.storage, access.offset, access.pattern)
        self.core = core


class View:
    """A tensor or tile as the kernel sees it: shape, dtype and its access pattern."""

    def __init__(self, storage, offset, dims, dtype=None):
        # dims: [(stride, count)] per axis of the view, in view order.
        self.storage, self.offset, self.dims = storage, offset, list(dims)
        self.shape = tuple([c for _, c in self.dims])
        self.dtype = dtype or storage.dtype
        self.pending = None    # the instruction that produced this value, until it is stored

    @property
    def buffer(self):
        return self.storage.buffer

    @property
    def ndim(self):
        return len(self.dims)

    def access(self, mask=None):
        return Access(self.storage, self.offset, self.dims)

    def __repr__(self):
        return "<%s %s %s in %s>" % (self.storage.name, list(self.shape), self.dtype.name, self.buffer.name)

    def __len__(self):
        return self.dims[0][1] if self.dims else 0

    # -- indexing ---------------------------------------------------------------------------
    def __getitem__(self, key):
        return index_view(self, key, "indexing " + self.storage.name)

    def __setitem__(self, key, value):
        from . import ops
        ops.assign(index_view(self, key, "assigning to " + self.storage.name), value)

    def __iadd__(self, value):
        from . import ops
        ops.accumulate(self, value)
        return self

    # -- view methods -------------------------------------------------------------------------
    def reshape(self, shape, *more):
        if more or isinstance(shape, int):
            shape = (shape,) + tuple(more)
        shape = tuple(int(s) for s in shape)
        n = 1
        for s in shape:
            n *= s
        if n != math.prod(self.shape):
            fail("reshape", "a shape of %d elements like %s, got %s" % (math.prod(self.shape), list(self.shape), list(shape)))
        if not self.contiguous():
            fail("reshape", "a contiguous view (this one has gaps); reshape the tensor before slicing it")
        dims, s = [], 1
        for d in reversed(shape):
            dims.insert(0, (s, d))
            s *= d
        if self.storage.on_chip and shape and shape[0] != self.shape[0]:
            fail("reshape", "a tile reshape that keeps the partition axis (%d), got %s" % (self.shape[0], list(shape)))
        if self.storage.on_chip:
            dims[0] = self.dims[0]
        return View(self.storage, self.offset, dims, self.dtype)

    def contiguous(self):
        expect = 1
        dims = self.dims[1:] if self.storage.on_chip else self.dims
        for stride, count in reversed(dims):
            if count > 1 and stride != expect:
                return False
            expect *= count
        return True

    def broadcast_to(self, shape):
        shape = tuple(shape)
        if len(shape) != self.ndim:
            fail("broadcast_to", "a shape of rank %d, got %s" % (self.ndim, list(shape)))
        dims = []
        for (stride, count), want in zip(self.dims, shape):
            if count == want:
                dims.append((stride, count))
            elif count == 1:
                dims.append((0, want))
            else:
                fail("broadcast_to", "axes of size 1 or %d, got %d" % (want, count))
        return View(self.storage, self.offset, dims, self.dtype)

    def flatten_dims(self, start=0, end=None):
        end = self.ndim - 1 if end is None else end
        shape = list(self.shape)
        merged = math.prod(shape[start:end + 1])
        return self.reshape(tuple(shape[:start] + [merged] + shape[end + 1:]))

    def select(self, axis, index):
        key = [slice(None)] * self.ndim
        key[axis] = index
        return self[tuple(key)]

    def slice(self, axis, start, stop, step=1):
        key = [slice(None)] * self.ndim
        key[axis] = slice(start, stop, step)
        return self[tuple(key)]

    # Arithmetic on tiles lowers to the Vector engine's tensor_tensor / tensor_scalar.
    def _arith(self, other, op, reverse=False):
        from . import ops
        return ops.binary(op, self, other, reverse)

    def __add__(self, o):
        return self._arith(o, "add")

    def __radd__(self, o):
        return self._arith(o, "add", True)

    def __sub__(self, o):
        return self._arith(o, "subtract")

    def __rsub__(self, o):
        return self._arith(o, "subtract", True)

    def __mul__(self, o):
        return self._arith(o, "multiply")

    def __rmul__(self, o):
        return self._arith(o, "multiply", True)

    def __truediv__(self, o):
        return self._arith(o, "divide")

    # Views compare by identity (they are dict keys in the recorder).
    __hash__ = object.__hash__


def index_view(v, key, call):
    """The view `v[key]`: integers drop an axis, slices and aranges keep one."""
    if not isinstance(key, tuple):
        key = (key,)
    if any(k is Ellipsis for k in key):
        i = key.index(Ellipsis)
        key = key[:i] + (slice(None),) * (v.ndim - len(key) + 1) + key[i + 1:]
    if len(key) > v.ndim:
        fail(call, "at most %d indices for a view of shape %s, got %d" % (v.ndim, list(v.shape), len(key)))
    key = key + (slice(None),) * (v.ndim - len(key))
    offset = v.offset
    kept = []        # (axis order, stride, count, index variable or None)
    for axis, (k, (stride, count)) in enumerate(zip(key, v.dims)):
        if isinstance(k, bool):
            fail(call, "integer, slice or nl.arange indices, got %r" % (k,))
        if isinstance(k, IndexExpr):
            lo, hi = sorted((k.offset, k.offset + k.coef * (k.var.n - 1)))
            if lo < 0 or hi >= count:
                fail(call, "index values inside [0, %d) on axis %d of %s, got %d..%d" % (count, axis, list(v.shape), lo, hi))
            offset += k.offset * stride
            kept.append((k.var.axis, stride * k.coef, k.var.n, k.var))
        elif isinstance(k, slice):
            for b in (k.start, k.stop, k.step):
                if b is not None and not isinstance(b, int):
                    fail(call, "integer slice bounds on axis %d, got %r" % (axis, b))
            if k.stop is not None and k.stop > count or k.start is not None and k.start >= count:
                fail(call, "a slice inside [0, %d] on axis %d of %s, got %s:%s" % (count, axis, list(v.shape), k.start, k.stop))
            start, stop, step = k.indices(count)
            if step <= 0:
                fail(call, "a slice with a positive step on axis %d" % axis)
            n = max(0, (stop - start + step - 1) // step)
            if n == 0:
                fail(call, "a non-empty slice on axis %d of %s, got %s:%s" % (axis, list(v.shape), k.start, k.stop))
            offset += start * stride
            kept.append((axis, stride * step, n, None))
        elif hasattr(k, "__index__"):
            i = int(k.__index__())
            if i < 0:
                i += count
            if not 0 <= i < count:
                fail(call, "an index in [0, %d) on axis %d of %s, got %d" % (count, axis, list(v.shape), int(k)))
            offset += i * stride
        else:
            fail(call, "integer, slice or nl.arange indices, got %r" % (k,))
    # Arange indices take their numpy placement ([:, None] is axis 0); slices keep their order.
    if kept and all(x[3] is not None for x in kept):
        kept.sort(key=lambda x: x[0])
    out = View(v.storage, offset, [(x[1], x[2]) for x in kept], v.dtype)
    out.vars = [x[3] for x in kept]
    return out


def masked(view, mask):
    """The view with masked index variables cut to the values the mask keeps."""
    if mask is None:
        return view
    if not isinstance(mask, Mask):
        fail("mask", "a comparison of nl.arange indices, got %r" % (mask,))
    vars_ = getattr(view, "vars", None) or [None] * view.ndim
    dims = []
    for (stride, count), var in zip(view.dims, vars_):
        dims.append((stride, mask.count(var) if var is not None else count))
    out = View(view.storage, view.offset, dims, view.dtype)
    out.vars = vars_
    return out


# ---------------------------------------------------------------------------------------------
# Allocation as a compiler would do it (docs/nki-frontend.md, "Allocation").

class Allocator:
    """SBUF: a stack per loop scope over one partition's usable bytes (a scope's tiles are freed
    when its loop ends). PSUM: whole 2 KiB banks, the same scoping. A tile allocated inside an
    affine_range/static_range body gets `loop_buffers` rotating buffers, one per iteration in
    turn; a sequential_range body one (its iterations depend on each other)."""

    def __init__(self, sbuf_bytes, align, psum_bytes, psum_bank_bytes, loop_buffers):
        self.sbuf_bytes, self.align = sbuf_bytes, align
        self.psum_bytes, self.bank = psum_bytes, psum_bank_bytes
        self.loop_buffers = loop_buffers
        self.sbuf_top = 0
        self.psum_top = 0
        self.sbuf_peak = 0
        self.psum_peak = 0
        # One frame per open loop: where its tiles start, and its sites' buffers.
        self.frames = [self.frame(0, 0, 1, True)]
        # Each rotating tile's turns so far, kept across the re-entries of its loop: an inner
        # loop's body is a new frame in every iteration of the outer loop, at the same depth and
        # place, and its tiles go on rotating (ASSUMPTIONS "loop buffers"). Counting afresh
        # in each outer iteration gave an inner loop of 8 iterations over 6 buffers two turns of
        # buffers 0 and 1 per outer iteration and none of the others' second: W1's transpose ran
        # slower with 5, 6 or 7 buffers than with 4.
        self.turns = {}
        # The tiles given rotating buffers (a site in a loop nest, counted once): `loop_buffers`
        # changes the trace only if there are some, so an uncertainty band varies it only then.
        self.rotating = set()

    @staticmethod
    def frame(sbuf, psum, rotate, renamable):
        # renamable: the frame's tiles are placed once, for rename.py to copy (outside any loop,
        # in a sequential_range body); an affine_range/static_range body's rotate instead.
        return {"sbuf": sbuf, "psum": psum, "sites": {}, "rotate": rotate, "renamable": renamable, "uses": {}}

    def sbuf_size(self, free):
        """The bytes per partition a tile of `free` bytes takes in SBUF (its alignment)."""
        return -(-free // self.align) * self.align

    def push(self, rotate, renamable):
        self.frames.append(self.frame(self.sbuf_top, self.psum_top, rotate, renamable))

    def next_iteration(self):
        self.frames[-1]["uses"] = {}

    def pop(self):
        f = self.frames.pop()
        self.sbuf_top, self.psum_top = f["sbuf"], f["psum"]

    def tile(self, shape, dtype, buffer, site, call, name):
        if not shape:
            fail(call, "a tile shape with a partition axis")
        parts = shape[0]
        if parts > REC.partitions:
            fail(call, "at most %d partitions (the partition axis is the first), got shape %s" % (REC.partitions, list(shape)))
        free = dtype.size * math.prod(shape[1:])
        f = self.frames[-1]
        n = f["rotate"]
        # The k-th use of a site in one iteration is its own tile (a helper called twice, a list
        # comprehension); the same use in later iterations rotates over the tile's n buffers.
        k = f["uses"].get(site, 0)
        f["uses"][site] = k + 1
        key = (site, k)
        slots = f["sites"].get(key)
        if slots is None:
            if buffer is SBUF:
                size = self.sbuf_size(free)
                base = self.sbuf_top
                self.sbuf_top += size * n
                if self.sbuf_top > self.sbuf_bytes:
                    fail(call, "SBUF space: %s needs %d B per partition x %d buffer(s) at offset %d, over the %d B usable per partition (SBUF overflow)"
                         % (name, size, n, base, self.sbuf_bytes))
                self.sbuf_peak = max(self.sbuf_peak, self.sbuf_top)
                slots = [base + j * size for j in range(n)]
            else:
                if free > self.bank:
                    fail(call, "a PSUM tile of at most one %d B bank per partition, got %d B (%s)" % (self.bank, free, list(shape)))
                base = self.psum_top
                self.psum_top += self.bank * n
                if self.psum_top > self.psum_bytes:
                    fail(call, "PSUM space: %s needs %d bank(s) of %d, %d already in use (PSUM overflow)"
                         % (name, n, self.psum_bytes // self.bank, base // self.bank))
                self.psum_peak = max(self.psum_peak, self.psum_top)
                slots = [base + j * self.bank for j in range(n)]
            f["sites"][key] = slots
        turn_key = (len(self.frames), f["sbuf"], f["psum"], key)
        if not f["renamable"]:
            self.rotating.add(turn_key)
        turn = self.turns.get(turn_key, 0)
        self.turns[turn_key] = turn + 1
        addr = slots[turn % len(slots)]
        # A buffer's tile object is made once and handed out again on its later turns (a loop
        # allocates the same tile every iteration), fresh: no PSUM write pending or recorded.
        tiles = f.setdefault("tiles", {})
        t = tiles.get((key, addr))
        if t is None or t.shape != tuple(shape) or t.dtype is not dtype:
            t = tiles[(key, addr)] = Tile(shape, dtype, buffer, name, addr)
            t.buffer_slot = turn % len(slots)
            t.renamable = f["renamable"]
            t.allocator, t.site = self, key
        t.zero_pending = False
        t.written = False
        return t


# ---------------------------------------------------------------------------------------------
# The recorder: the instructions of every core, in program order.

class Instruction:
    __slots__ = ("core", "engine", "opcode", "reads", "writes", "fields", "partitions", "free",
                 "location", "what", "unit", "affine", "loops")

    def __init__(self, engine, opcode, reads, writes, fields, partitions, free, what):
        self.core = REC.core
        self.engine, self.opcode = engine, opcode
        self.reads, self.writes = reads, writes   # lists of (Access, dtype) or (None, scalar)
        self.fields = fields
        self.partitions, self.free = partitions, free
        self.location = caller_location()
        self.what = what
        self.unit = REC.unit
        self.affine = REC.affine   # ((loop instance, iteration), ...) of the open affine_range loops
        self.loops = REC.loops     # the same of every open loop, of any kind


class Recorder:
    def __init__(self):
        self.reset({})

    def reset(self, target):
        _SHOWN.clear()
        self.partitions = int(target.get("partitions", 128))
        self.sbuf_bytes = int(target.get("sbuf_usable_bytes", 196608))
        self.align = int(target.get("sbuf_align", 16))
        self.psum_bytes = int(target.get("psum_bytes_per_partition", 16384))
        self.psum_bank = int(target.get("psum_bank_bytes", 2048))
        self.num_cores = int(target.get("cores", 1))
        self.dma_queues = int(target.get("dma_queues", 16))
        self.dge = target.get("dge", "auto")
        self.loop_buffers = int(target.get("loop_buffers", 4))
        self.rename_copies = int(target.get("rename_copies", 8))
        self.source_dir = target.get("source_dir", "")
        self.shown_dir = ""
        self.instructions = []
        self.tensors = []
        self.core = 0
        self.unit = -1
        self.loop_depth = 0
        self.affine = ()            # the open affine_range loops: ((instance, iteration), ...)
        self.affine_ids = frozenset()
        self.loops = ()             # every open loop: ((instance, iteration), ...)
        self.loop_sites = {}        # loop instance -> its source line
        self.loops_started = 0
        self.top_iter = 0
        self.queues = {}
        self.alloc = None
        self.allocators = []
        self.sites = {}

    def display_name(self, path):
        """A kernel file as the run config names it (its folder joined to the config's)."""
        if self.source_dir and os.path.abspath(path).startswith(self.source_dir + os.sep):
            rel = os.path.relpath(os.path.abspath(path), self.source_dir)
            return os.path.join(self.shown_dir, rel) if self.shown_dir else rel
        return path

    def new_core(self, core):
        self.core = core
        self.alloc = Allocator(self.sbuf_bytes, self.align, self.psum_bytes, self.psum_bank, self.loop_buffers)
        self.allocators.append(self.alloc)
        self.unit = -1
        self.top_iter = 0

    @property
    def sbuf_peak(self):
        return max([a.sbuf_peak for a in self.allocators] or [0])

    @property
    def rotating_tiles(self):
        return sum(len(a.rotating) for a in self.allocators)

    @property
    def psum_peak(self):
        return max([a.psum_peak for a in self.allocators] or [0])

    def add_tensor(self, t):
        t.id = len(self.tensors)
        self.tensors.append(t)
        return t

    def append(self, ins):
        self.instructions.append(ins)
        return ins

    def queue(self, key, column=False, slot=0):
        """The DMA stream of a transfer: one per (core, direction, HBM tensor, rotating buffer of
        the on-chip tile); the transfers of a core's vector tensors (per-channel columns) are one
        shared stream. Numbers are handed out when the trace is written (`assign_queues`), once
        every stream is known."""
        if column:
            return ("column",)
        return key + (slot,) if slot else key

    def assign_queues(self):
        """Per core: the tile streams numbered in order of first use, then one queue shared by
        all the vector-tensor transfers, after them (ops.ASSUMPTIONS "dma queues")."""
        order = {}
        for ins in self.instructions:
            if ins.opcode == "dma_copy":
                streams = order.setdefault(ins.core, [])
                if ins.fields["stream"] not in streams:
                    streams.append(ins.fields["stream"])
        numbers = {}
        for c, streams in order.items():
            tiles = [s for s in streams if s != ("column",)]
            for i, s in enumerate(tiles):
                numbers[(c, s)] = i % self.dma_queues
            numbers[(c, ("column",))] = len(tiles) % self.dma_queues
        for ins in self.instructions:
            if ins.opcode == "dma_copy":
                ins.fields["queue"] = numbers[(ins.core, ins.fields["stream"])]


REC = Recorder()
