"""Tile renaming: the copies a compiler gives a buffer whose values never cross a loop iteration.

A tile the kernel allocates once and refills in every iteration of a loop (an input row loaded,
multiplied, loaded again), or allocates anew in every iteration of a sequential_range body (the
allocator's one buffer), serializes the loop on that buffer if taken literally: each write
waits for the last iteration's readers (write-after-read). When no value flows between
iterations through the buffer, that ordering is no dependency of the program, and a compiler
renames the buffer: iteration k works in copy k mod n. Which buffers neuronx-cc renames is not
published; the rule is declared in ops.ASSUMPTIONS ("tile renaming"), with the number of
copies (nki.rename_copies, 8; 1 turns renaming off).

A buffer is one allocation site's place in SBUF or PSUM (every tile the site allocated there).
It may be renamed over the iterations of a loop (a source line, all its instances) when every
read of it sees only values written in the same iteration of that loop, or, for a read outside
the loop, values written outside it. The values a read sees are found on the access
rectangles the trace's dependencies use (partitions x bytes): walking back over the buffer's
writes until exact ones cover the read. Of the loops for which the rule holds, the one whose
iterations write the buffer most often is used. Only buffers the allocator placed once are
renamed (a tile of an affine_range body already rotates); their copies go above the core's
allocation peak, as many as fit, up to `rename_copies`.
"""

from .core import REC, SBUF, Access, Tile
from .writer import split

SCALAR_FIELDS = ("scale", "bias", "scalar0", "scalar1", "scalar")  # per-partition column operands
WALK_LIMIT = 256   # writes looked back per read; past it the buffer is left alone (conservatively)
PAIR_LIMIT = 1 << 21  # (read, reaching write) pairs kept per buffer; past it, left alone too


def scalar_fields(ins):
    """The [P, 1] column operands an instruction reads through its fields (a tensor_scalar's
    operand0, an activation's bias): (field, (access, dtype)) each."""
    for key in SCALAR_FIELDS:
        v = ins.fields.get(key)
        if isinstance(v, tuple) and isinstance(v[0], Access):
            yield key, v


def rectangle(acc):
    """(partition lo, hi, byte lo, hi) of an access, half-open, and whether it is exact (touches
    every element of the rectangle)."""
    st = acc.storage
    (p0, p1, c0, c1), over = split(acc, st.partition_stride)
    ds = st.dtype.size
    return (st.p0 + p0, st.p0 + p1, st.addr + c0 * ds, st.addr + c1 * ds), over == 0


def overlaps(a, b):
    return a[0] < b[1] and b[0] < a[1] and a[2] < b[3] and b[2] < a[3]


def covered(read, pieces):
    """Whether exact rectangles `pieces` cover `read`: those spanning its partitions cover its
    bytes, or those spanning its bytes cover its partitions (a tile filled row by row or
    partition block by block)."""
    for span, (lo, hi), axis in ((0, (read[2], read[3]), 2), (2, (read[0], read[1]), 0)):
        ivs = sorted((w[axis], w[axis + 1]) for w in pieces if w[span] <= read[span] and read[span + 1] <= w[span + 1])
        for a, b in ivs:
            if a <= lo:
                lo = max(lo, b)
        if lo >= hi:
            return True
    return False


def reaching(read, writes, end):
    """Indices of the writes among writes[:end] whose values the read rectangle may see, latest
    first, or None when the walk gave up."""
    found, pieces = [], []
    for n in range(end):
        if n >= WALK_LIMIT:
            return None
        idx, rect, exact = writes[end - 1 - n]
        if not overlaps(rect, read):
            continue
        found.append(idx)
        if exact:
            pieces.append(rect)
            if covered(read, pieces):
                break
    return found


def rename():
    """Rename every buffer the rule allows; returns how many got copies."""
    n = REC.rename_copies
    if n < 2:
        return 0
    # Every access of every candidate buffer, in program order: (index, is_write, access).
    buffers, pinned = {}, set()
    for idx, ins in enumerate(REC.instructions):
        for k, ops in ((0, ins.reads + [v for _, v in scalar_fields(ins)]), (1, ins.writes)):
            for acc, _ in ops:
                if acc is None or not isinstance(acc.storage, Tile) or not acc.storage.renamable:
                    continue
                st = acc.storage
                key = (id(st.allocator), st.buffer.name, st.addr, st.site)
                group = buffers.setdefault(key, [])
                if k and ins.opcode == "nc_matmul" and ins.fields.get("accumulate"):
                    group.append((idx, 0, acc))  # an accumulating matmul reads the sums it adds to
                group.append((idx, k, acc))
                if ins.opcode == "sendrecv":
                    pinned.add(key)  # the peer reads the same place: not this core's to move
    renamed, placed = 0, {}
    for key, accs in buffers.items():
        if key in pinned:
            continue
        base = key[2]
        turn_of = choose_loop(accs)
        if turn_of is None:
            continue
        first = accs[0][2].storage
        bases = place_copies(first, n, (accs[0][0], accs[-1][0]), placed)
        if len(bases) < 2:
            continue
        copies = {}
        for idx, k, acc in accs:
            ins = REC.instructions[idx]
            turn = turn_of(ins)
            c = 0 if turn is None else turn % len(bases)
            if c == 0:
                continue
            st = acc.storage
            twin = copies.get((id(st), c))
            if twin is None:
                twin = copies[(id(st), c)] = copy_of(st, st.addr - base + bases[c], c)
            moved = Access(twin, acc.offset, acc.pattern)
            for j, (a, dt) in enumerate(ins.writes if k else ins.reads):
                if a is acc:
                    (ins.writes if k else ins.reads)[j] = (moved, dt)
            if not k:
                for field, (a, dt) in list(scalar_fields(ins)):
                    if a is acc:
                        ins.fields[field] = (moved, dt)
            # Each copy a DMA stream of its own, as each rotating buffer of an affine body has.
            if ins.opcode == "dma_copy" and ins.fields["stream"] != ("column",):
                ins.fields["stream"] = ins.fields["stream"] + (("copy", c),)
        renamed += 1
    return renamed


def choose_loop(accs):
    """The turn of an instruction (its iteration of the loop the buffer is renamed over,
    numbered in program order; None outside the loop), or None when no loop qualifies."""
    writes, pairs = [], []
    for idx, k, acc in accs:
        rect, exact = rectangle(acc)
        if k:
            writes.append((idx, rect, exact))
            continue
        # A read sees the writes before it (an instruction reads before it writes).
        end = len(writes)
        while end and writes[end - 1][0] >= idx:
            end -= 1
        got = reaching(rect, writes, end)
        if got is None:
            return None
        pairs.extend((idx, j) for j in got)
        if len(pairs) > PAIR_LIMIT:
            return None
    ins = REC.instructions
    sites = {}
    for idx, _, _ in writes:
        for loop, it in ins[idx].loops:
            sites.setdefault(REC.loop_sites[loop], set()).add((loop, it))
    best = None
    for site, iterations in sites.items():
        if len(iterations) < 2 or (best and len(iterations) <= best[0]):
            continue
        at = {}  # filled as the check goes: it stops at the first pair in different iterations

        def iteration(i, site=site, at=at):
            if i not in at:
                at[i] = iteration_at(ins[i], site)
            return at[i]

        if all(iteration(r) == iteration(w) for r, w in pairs):
            best = (len(iterations), site)
    if best is None:
        return None
    site, turns = best[1], {}

    def turn_of(i):
        it = iteration_at(i, site)
        return None if it is None else turns.setdefault(it, len(turns))

    for idx, _, _ in accs:
        turn_of(ins[idx])  # number the turns in program order
    return turn_of


def iteration_at(ins, site):
    """(loop instance, iteration) of the loop at `site` enclosing an instruction, or None."""
    return next(((l, t) for l, t in ins.loops if REC.loop_sites[l] == site), None)


def place_copies(st, n, life, placed):
    """Base addresses of the buffer (its own first) and of up to n - 1 copies, as many as fit.
    Copies go above the core's allocation peak (where no tile the kernel allocated lies), each at
    the lowest place no copy of a buffer live at the same time (`life`: its first and last
    instruction) holds; `placed` keeps, per allocator and space, the copies placed so far."""
    alloc = st.allocator
    if st.buffer is SBUF:
        size = alloc.sbuf_size(st.dtype.size * (st.elems // st.shape[0]))
        lo, cap, step = alloc.sbuf_peak, alloc.sbuf_bytes, alloc.align
    else:
        size, lo, cap, step = alloc.bank, alloc.psum_peak, alloc.psum_bytes, alloc.bank
    blocks = placed.setdefault((id(alloc), st.buffer.name), {"base": lo, "blocks": []})
    live = sorted((a, b) for a, b, f, l in blocks["blocks"] if f <= life[1] and life[0] <= l)
    bases = [st.addr]
    addr = blocks["base"]
    while len(bases) < n:
        for a, b in live:
            if addr < b and a < addr + size:
                addr = -(-b // step) * step
        if addr + size > cap:
            break
        bases.append(addr)
        live.append((addr, addr + size))
        live.sort()
        blocks["blocks"].append((addr, addr + size, life[0], life[1]))
        addr += size
    top = max([b for _, b, _, _ in blocks["blocks"]] or [lo])
    if st.buffer is SBUF:
        alloc.sbuf_peak = max(alloc.sbuf_peak, top)
    else:
        alloc.psum_peak = max(alloc.psum_peak, top)
    return bases


def copy_of(st, addr, c):
    t = Tile(st.shape, st.dtype, st.buffer, st.name, addr, st.p0)
    t.affine_owner = st.affine_owner
    t.buffer_slot = c
    return t
