"""Races a kernel's own ordering allows: dependencies between iterations of an affine_range loop.

affine_range tells the compiler the loop's iterations are independent, so it may reorder or
overlap them; a read-after-write, write-after-read or write-after-write between two iterations,
on memory the loop body did not allocate (an HBM tensor, a tile allocated outside the loop), is
a race the kernel's ordering allows and the NKI simulator cannot see. Tiles allocated inside the
body are the compiler's to rotate and synchronise; accumulating matmuls into one PSUM tile (`+=`)
are the reduction affine_range permits. A race is reported once per pair of source lines.
"""

from .core import REC

MAX_REPORTED = 50
MAX_PAIRS = 300_000     # pairs compared at most (about a second); past it the check says it stopped


_SPANS = {}


def span(acc):
    rel = _SPANS.get(acc.pattern)
    if rel is None:
        rel = _SPANS[acc.pattern] = (sum(s * (n - 1) for s, n in acc.pattern if s < 0),
                                     sum(s * (n - 1) for s, n in acc.pattern if s > 0))
    return acc.offset + rel[0], acc.offset + rel[1]


def box(acc):
    """The access as an index range per dimension of its storage ({dim: (lo, hi)}), when each of
    its [stride, count] pairs steps along one dimension (views made by indexing); else None."""
    st = acc.storage
    off, idx = acc.offset, []
    for stride in st.strides:
        idx.append(off // stride)
        off %= stride
    ranges = {d: (i, i) for d, i in enumerate(idx)}
    used = set()
    for s, n in acc.pattern:
        if n <= 1 or s == 0:
            continue
        for d, stride in enumerate(st.strides):
            if d not in used and s % stride == 0 and idx[d] + (s // stride) * (n - 1) < st.shape[d]:
                used.add(d)
                ranges[d] = (idx[d], idx[d] + (s // stride) * (n - 1))
                break
        else:
            return None
    return ranges


def overlap(a, b):
    """Whether two access patterns may share an element: by their index boxes where both are
    boxes of the storage's dimensions, exactly for patterns of the same nested strides, else by
    their spans (so a race is never missed, only sometimes reported where there is none)."""
    (alo, ahi), (blo, bhi) = span(a), span(b)
    if ahi < blo or bhi < alo:
        return False
    ba, bb = box(a), box(b)
    if ba is not None and bb is not None:
        return all(ba[d][0] <= bb[d][1] and bb[d][0] <= ba[d][1] for d in ba)
    pa = sorted(((s, n) for s, n in a.pattern if n > 1 and s), reverse=True)
    pb = sorted(((s, n) for s, n in b.pattern if n > 1 and s), reverse=True)
    if pa != pb:
        return True
    inner = 0
    for s, n in reversed(pa):
        if s <= inner:
            return True
        inner += s * (n - 1)
    d = b.offset - a.offset
    for s, n in pa:
        k = max(-(n - 1), min(n - 1, int(d / s)))
        d -= k * s
    return d == 0


def find():
    """Lines describing the races, and how many pairs of source lines race."""
    by_storage = {}
    for idx, ins in enumerate(REC.instructions):
        if not ins.affine:
            continue
        for k, accs in ((0, ins.reads), (1, ins.writes)):
            for acc, _ in accs:
                st = acc.storage
                loops = [(l, it) for l, it in ins.affine if l not in st.affine_owner]
                if loops:
                    by_storage.setdefault(id(st), (st, []))[1].append((span(acc)[0], idx, k, acc, loops))
    found, pairs, stopped = {}, 0, False
    for st, accs in by_storage.values():
        if not any(k for _, _, k, _, _ in accs):
            continue  # read only
        # Sweep along one axis: a dimension of the storage when every access is a box of its
        # dimensions (the one their starts spread over most), else the flat element span.
        boxes = [box(x[3]) for x in accs]
        if all(b is not None for b in boxes):
            dims = range(len(st.shape))
            d = max(dims, key=lambda d: len({b[d][0] for b in boxes})) if st.shape else 0
            keyed = [(b[d][0], b[d][1], x) for b, x in zip(boxes, accs)]
        else:
            keyed = [(span(x[3])[0], span(x[3])[1], x) for x in accs]
        keyed.sort(key=lambda t: t[0])
        active = []
        for lo, hi, (_, idx, k, acc, loops) in keyed:
            if active and active[0][0] < lo:
                active = [x for x in active if x[0] >= lo]
            for _, (_, jdx, kk, other, oloops) in active:
                if not (k or kk):
                    continue
                pairs += 1
                if pairs > MAX_PAIRS:
                    stopped = True
                    break
                common = dict(loops)
                loop = next((l for l, it in oloops if l in common and common[l] != it), None)
                if loop is None or not overlap(acc, other):
                    continue
                first, second = (jdx, idx) if jdx < idx else (idx, jdx)
                a, b = REC.instructions[first], REC.instructions[second]
                if a.opcode == b.opcode == "nc_matmul" and st.buffer.name == "psum":
                    continue
                a_writes, b_writes = (kk, k) if jdx < idx else (k, kk)
                kind = "WAW" if a_writes and b_writes else "RAW" if a_writes else "WAR"
                key = (a.location, b.location, REC.loop_sites[loop])
                if key not in found:
                    found[key] = "%s on %s between iterations of the affine_range at %s: %s (%s) and %s (%s)" % (
                        kind, st.name, REC.loop_sites[loop], a.location, a.opcode, b.location, b.opcode)
            if stopped:
                break
            active.append((hi, (lo, idx, k, acc, loops)))
            active.sort(key=lambda t: t[0])
        if stopped:
            break
    lines = list(found.values())[:MAX_REPORTED]
    if stopped:
        lines.append("(the race check stopped after %d access pairs; more races may exist)" % MAX_PAIRS)
    return lines, len(found)
