"""Loops (unrolled as they run; the kind decides buffer rotation) and the SPMD launch grid."""

from .core import REC, caller_location, fail


def _range(kind, args, call):
    if not 1 <= len(args) <= 3 or not all(isinstance(a, int) for a in args):
        fail(call, "integer start, stop and step, got %r" % (args,))
    r = range(*args)
    if len(r) > 1 << 22:
        fail(call, "at most 4194304 iterations, got %d" % len(r))
    top = REC.loop_depth == 0
    REC.alloc.push(REC.loop_buffers if kind != "sequential" else 1, kind == "sequential")
    REC.loop_depth += 1
    outer, outer_ids, outer_loops = REC.affine, REC.affine_ids, REC.loops
    REC.loops_started += 1
    loop = REC.loops_started
    REC.loop_sites[loop] = caller_location()
    if kind == "affine":
        REC.affine_ids = outer_ids | {loop}
    try:
        for i in r:
            REC.alloc.next_iteration()
            REC.loops = outer_loops + ((loop, i),)
            if kind == "affine":
                REC.affine = outer + ((loop, i),)
            if top:
                REC.unit = REC.top_iter
                REC.top_iter += 1
            yield i
    finally:
        REC.loop_depth -= 1
        REC.alloc.pop()
        REC.affine, REC.affine_ids, REC.loops = outer, outer_ids, outer_loops
        if top:
            REC.unit = -1


def affine_range(*args, **kw):
    return _range("affine", args, "nl.affine_range")


def sequential_range(*args, **kw):
    return _range("sequential", args, "nl.sequential_range")


def static_range(*args, **kw):
    return _range("static", args, "nl.static_range")


def program_id(axis=0):
    if axis != 0:
        return 0
    return REC.core


def num_programs(axes=None):
    return REC.num_cores


def program_ndim():
    return 1 if REC.num_cores > 1 else 0


def spmd_dim(*a):
    return a[0] if a else 1


def nc(n):
    return n
