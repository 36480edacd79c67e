"""Writing the recorded kernel as a trace file (docs/trace-format.md, version 1).

HBM regions are rectangles of a tensor viewed as [rows, row_bytes]. The view of each tensor is
chosen once every access to it is known: of the splits of its shape (row length = a suffix
product of its dimensions, or one element), the one whose rectangles cover the fewest bytes no
access touches, then the one whose rows line up with the on-chip side's partitions. An access
that is still not a rectangle is written as its bounding rectangle and counted in the header.
"""

import json
import math

from .core import REC, SBUF

FORMAT, VERSION = "bnsim-trace", 1


def split(access, row_elems):
    """(row_lo, row_hi, col_lo, col_hi) in elements of the access viewed with rows of
    row_elems, and how many elements the rectangle covers beyond those accessed. A pattern's
    extents along a row and across rows are worked out once (a loop's accesses share their
    pattern and differ in offset); an access that wraps past a row's end takes the long way."""
    off, R = access.offset, row_elems
    key = (access.pattern, R)
    ext = _EXTENTS.get(key)
    if ext is None:
        pattern = [(s, n) for s, n in access.pattern if n > 1 and s != 0]
        col = sum(s * (n - 1) for s, n in pattern if s % R)
        row = sum((s // R) * (n - 1) for s, n in pattern if s % R == 0)
        count = 1
        for _, n in pattern:
            count *= n
        ext = _EXTENTS[key] = (col, row, (row + 1) * (col + 1) - count)
    col, row, over = ext
    c_lo = off % R
    if c_lo + col < R:
        r_lo = off // R
        return (r_lo, r_lo + row + 1, c_lo, c_lo + col + 1), over
    return _split(off, access.pattern, R)


_EXTENTS = {}


def _split(off, pattern, row_elems):
    pattern = [(s, n) for s, n in pattern if n > 1 and s != 0]
    R = row_elems
    cols = [(s, n) for s, n in pattern if s % R]
    rows = [(s // R, n) for s, n in pattern if s % R == 0]
    c_lo = off % R
    c_hi = c_lo + sum(s * (n - 1) for s, n in cols)
    if c_hi < R:
        r_lo = off // R
        r_hi = r_lo + sum(s * (n - 1) for s, n in rows)
    else:
        lin_hi = off + sum(s * (n - 1) for s, n in pattern)
        r_lo, r_hi = off // R, lin_hi // R
        c_lo, c_hi = (0, R - 1) if r_hi > r_lo else (off % R, lin_hi % R)
    count = 1
    for _, n in pattern:
        count *= n
    return (r_lo, r_hi + 1, c_lo, c_hi + 1), (r_hi - r_lo + 1) * (c_hi - c_lo + 1) - count


def choose_views():
    inexact = 0
    for t in REC.tensors:
        # Row lengths: one element, each suffix product of the shape, and each stride an access
        # steps by (a reshaped view's rows: a [25600] vector read as [128, 200] tiles).
        cands = {1} | {math.prod(t.shape[k:]) for k in range(len(t.shape))}
        for acc, _ in t.accesses:
            cands.update(s for s, n in acc.pattern if n > 1 and 1 < s < t.elems and t.elems % s == 0)
        cands = sorted(cands)
        best = None
        for R in cands:
            if t.elems % R:
                continue
            over = mismatch = 0
            for acc, parts in t.accesses:
                (r0, r1, _, _), o = split(acc, R)
                over += o
                mismatch += (r1 - r0) != parts
            key = (over, mismatch, -R)
            if best is None or key < best[0]:
                best = (key, R)
        if not t.accesses:
            best = (None, t.shape[-1] if t.shape else 1)  # untouched: rows of its last dimension
        t.view_row_elems = best[1] if best else t.elems
        inexact += sum(1 for acc, _ in t.accesses if split(acc, t.view_row_elems)[1] > 0)
    return inexact


def rows_of(acc):
    st = acc.storage
    (r0, r1, _, _), _ = split(acc, st.partition_stride if st.on_chip else st.view_row_elems)
    return r1 - r0


def check_dma_rows():
    """The DMA model moves one HBM row per partition: a DMA whose sides have different row
    counts (a transposing or gathering copy) is refused at the call that issued it."""
    from .core import KernelSourceError
    for ins in REC.instructions:
        if ins.opcode != "dma_copy":
            continue
        (src, _), (dst, _) = ins.reads[0], ins.writes[0]
        a, b = rows_of(src), rows_of(dst)
        if a != b:
            raise KernelSourceError("nisa.dma_copy" if ins.what == "dma_copy" else "nl." + ins.what,
                                    "a copy whose HBM side is one row per partition (src %d rows, dst %d): a "
                                    "transposing or gathering DMA is not modelled" % (a, b), ins.location)


def region(acc, dtype, core):
    """The operand's JSON text; operands repeat (a tile per loop iteration), so each distinct
    one is formatted once."""
    st = acc.storage
    key = (id(st), acc.offset, acc.pattern, dtype.name, core)
    text = _REGIONS.get(key)
    if text is None:
        text = _REGIONS[key] = json.dumps(_region(acc, dtype, core), separators=(",", ":"))
    return text


_REGIONS = {}


def _region(acc, dtype, core):
    st = acc.storage
    ds = st.dtype.size
    if st.on_chip:
        (p0, p1, c0, c1), _ = split(acc, st.partition_stride)
        space = "sbuf" if st.buffer is SBUF else "psum"
        return {"space": space, "core": core, "partitions": [st.p0 + p0, st.p0 + p1],
                "bytes": [st.addr + c0 * ds, st.addr + c1 * ds], "dtype": dtype.name}
    (r0, r1, c0, c1), _ = split(acc, st.view_row_elems)
    return {"space": "hbm", "tensor": st.name, "core": core, "rows": [r0, r1], "bytes": [c0 * ds, c1 * ds],
            "dtype": dtype.name}


def scalar(v, core):
    return v if isinstance(v, float) else _region(v[0], v[1], core)


_QUOTED = {}


def quoted(s):
    q = _QUOTED.get(s)
    if q is None:
        q = _QUOTED[s] = json.dumps(s)
    return q


def write(out, kernel_name, info):
    from . import races, rename
    # The race check reads the kernel as written; renaming then moves tiles (and their DMA
    # streams) before the queues are numbered and any region is written.
    races_found = races.find()
    renamed = rename.rename()
    REC.assign_queues()
    # Every HBM access, with the partition count of its instruction's on-chip side.
    for ins in REC.instructions:
        for acc, _ in ins.reads + ins.writes:
            if not acc.storage.on_chip:
                acc.storage.accesses.append((acc, ins.partitions))
    info = dict(info)
    info["inexact_hbm_regions"] = choose_views()
    check_dma_rows()
    info["renamed_tiles"] = renamed
    info["rotating_tiles"] = REC.rotating_tiles
    info["loop_races"], info["loop_race_pairs"] = races_found
    info["sbuf_peak_bytes_per_partition"] = REC.sbuf_peak
    info["psum_peak_banks"] = REC.psum_peak // REC.psum_bank
    addr, tensors = 0, []
    for t in REC.tensors:
        addr = (addr + 4095) // 4096 * 4096
        R = t.view_row_elems
        d = {"id": t.id, "name": t.name, "dtype": t.dtype.name, "shape": list(t.shape), "rows": t.elems // R,
             "row_bytes": R * t.dtype.size, "addr": addr}
        if t.core is not None:
            d["owner_core"] = t.core
        if t.is_input:
            d["input"] = True
        if t.is_output:
            d["output"] = True
        tensors.append(d)
        addr += t.elems * t.dtype.size
    head = {"format": FORMAT, "version": VERSION, "kernel": kernel_name, "cores": REC.num_cores,
            "tensors": tensors, "instructions": len(REC.instructions), "info": info}
    dumps = json.JSONEncoder(separators=(",", ":")).encode
    lines = [dumps(head)]
    for i, ins in enumerate(REC.instructions):
        c = ins.core
        f = ins.fields
        extra = {}
        if ins.opcode == "activation":
            extra["func"], extra["scale"], extra["bias"] = f["func"], scalar(f["scale"], c), scalar(f["bias"], c)
            if "accumulate" in f:
                extra["accumulate"] = f["accumulate"]
            if f.get("readout"):
                extra["readout"] = True
        elif ins.opcode == "tensor_scalar":
            extra["op0"], extra["scalar0"] = f["op0"], scalar(f["scalar0"], c)
            if "op1" in f:
                extra["op1"], extra["scalar1"] = f["op1"], scalar(f["scalar1"], c)
        elif ins.opcode == "scalar_tensor_tensor":
            extra["op0"], extra["scalar"], extra["op1"] = f["op0"], scalar(f["scalar"], c), f["op1"]
        elif ins.opcode in ("tensor_tensor", "tensor_reduce"):
            extra["op"] = f["op"]
        elif ins.opcode == "dma_copy":
            extra = None
            more = ',"dge":"%s","queue":%d' % (f["dge"], f["queue"])
        elif ins.opcode == "memset":
            extra["value"] = f["value"]
        elif ins.opcode == "nc_matmul":
            extra["accumulate"] = bool(f["accumulate"])
        elif ins.opcode == "sendrecv":
            extra["peer"], extra["pipe"], extra["dge"] = f["peer"], f["pipe"], f["dge"]
        if extra is not None:
            more = "," + dumps(extra)[1:-1] if extra else ""
        unit = ',"unit":%d' % ins.unit if ins.unit >= 0 else ""
        lines.append('{"id":%d,"core":%d,"engine":"%s","opcode":"%s","partitions":%d,"free":%d,"reads":[%s],'
                     '"writes":[%s]%s,"tag":{"phase":0%s,"what":%s,"nki_source_location":%s}}'
                     % (i, c, ins.engine, ins.opcode, ins.partitions, ins.free,
                        ",".join([region(a, dt, getattr(a, "core", c)) for a, dt in ins.reads]),
                        ",".join([region(a, dt, c) for a, dt in ins.writes]), more, unit, quoted(ins.what),
                        quoted(ins.location)))
    out.write("\n".join(lines) + "\n")
