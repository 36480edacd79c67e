"""Traces one NKI kernel: `python3 -m bnsim_nki.run REQUEST.json OUT.jsonl` (bnsim runs this).

REQUEST.json: {"source": kernel file, "function": name, "args": {name: value or
{"shape": [...], "dtype": "..."}}, "target": {partitions, sbuf_usable_bytes, cores, dge, ...}}.
Exit 0 with the trace written to OUT.jsonl; exit 2 with one line on stderr naming the kernel
file and line, the call and what was expected; nothing is written then.
"""

import gc
import importlib.util
import inspect
import json
import os
import sys
import traceback
import types

from . import core, language, ops, standin, writer
from .core import REC, KernelSourceError


class Refused(Exception):
    pass


def kernel_frame_location(tb, source):
    """The innermost traceback frame in the kernel's own files (not the frontend's)."""
    where = None
    for fs in traceback.extract_tb(tb):
        if not os.path.abspath(fs.filename).startswith(core.FRONTEND_DIR + os.sep):
            where = "%s:%d" % (REC.display_name(fs.filename), fs.lineno)
    return where or REC.display_name(source)


def load_module(source):
    spec = importlib.util.spec_from_file_location("bnsim_nki_kernel", source)
    module = importlib.util.module_from_spec(spec)
    sys.modules["bnsim_nki_kernel"] = module
    try:
        spec.loader.exec_module(module)
    except KernelSourceError:
        raise
    except SyntaxError as e:
        raise Refused("%s:%s: the kernel file does not parse: %s" % (REC.display_name(source), e.lineno, e.msg))
    except BaseException as e:
        where = kernel_frame_location(e.__traceback__, source)
        raise Refused("%s: the kernel file does not import: %s: %s" % (where, type(e).__name__, e))
    return module


def tensor_arg(name, spec):
    shape, dtype = spec.get("shape"), spec.get("dtype", "float32")
    if not isinstance(shape, list) or not shape or not all(isinstance(s, int) and s >= 1 for s in shape):
        raise Refused("args.%s.shape: expected a list of positive integers, got %r" % (name, shape))
    dt = core.DTYPES.get(dtype)
    if dt is None:
        raise Refused("args.%s.dtype: expected one of %s, got %r" % (name, ", ".join(core.DTYPES), dtype))
    t = core.HbmTensor(shape, dt, core.SHARED_HBM, name, None, True)
    REC.add_tensor(t)
    return ops.full_view(t)


def trace(request):
    source = os.path.abspath(request["source"])
    REC.reset(request.get("target", {}))
    REC.source_dir = os.path.dirname(source)
    REC.shown_dir = os.path.dirname(request.get("display_source", source))
    language._set_tile_size()
    standin.install()
    sys.path.insert(0, os.path.dirname(source))
    module = load_module(source)
    name = request["function"]
    fn = getattr(module, name, None)
    if fn is None:
        from .jit import Kernel
        defined = sorted(k for k, v in vars(module).items() if not k.startswith("_") and
                         (isinstance(v, Kernel) or isinstance(v, types.FunctionType) and v.__module__ == "bnsim_nki_kernel"))
        raise Refused("%s: no function '%s' (the file defines %s)" % (REC.display_name(source), name,
                                                                      ", ".join(defined) or "no functions"))
    func = getattr(fn, "__wrapped__", fn)
    def_line = "%s:%d" % (REC.display_name(source), func.__code__.co_firstlineno) if hasattr(func, "__code__") else REC.display_name(source)
    args = request.get("args", {})
    values = {}
    for k, v in args.items():
        values[k] = tensor_arg(k, v) if isinstance(v, dict) and "shape" in v else v
    try:
        inspect.signature(func).bind(**values)
    except TypeError as e:
        raise Refused("%s: %s(): %s (the run config's nki.args)" % (def_line, name, e))
    for c in range(REC.num_cores):
        REC.new_core(c)
        try:
            out = func(**values)
        except KernelSourceError:
            raise
        except RecursionError:
            raise Refused("%s: the kernel recursed too deeply" % def_line)
        except Exception as e:
            where = kernel_frame_location(e.__traceback__, source)
            raise Refused("%s: the kernel raised %s: %s" % (where, type(e).__name__, e))
        for v in (out if isinstance(out, (tuple, list)) else [out]):
            if isinstance(v, core.View) and not v.storage.on_chip:
                v.storage.is_output = True
    info = {"source": REC.display_name(source), "function": name, "dge": REC.dge, "loop_buffers": REC.loop_buffers, "rename_copies": REC.rename_copies,
            "skip_middle_end_transformations": bool(getattr(REC, "skip_middle_end", False)),
            "assumptions": ops.ASSUMPTIONS, "kernel_files": kernel_files(source)}
    return name, info


def kernel_files(source):
    """The files the trace was made from: the kernel file and every module it imported from
    outside the frontend and the interpreter's own library and packages (a helper module beside
    it, say). bnsim keeps the trace across commands while these files are unchanged."""
    own = [os.path.abspath(p) + os.sep for p in {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}]
    own.append(core.FRONTEND_DIR + os.sep)
    files = {source}
    for module in list(sys.modules.values()):
        try:
            f = vars(module).get("__file__")  # not getattr: the stand-ins refuse what they lack
        except TypeError:
            continue
        if not isinstance(f, str):
            continue
        f = os.path.abspath(f)
        if os.path.isfile(f) and not any(f.startswith(p) for p in own):
            files.add(f)
    return sorted(files)


def main(argv):
    # The recorder makes a few objects per instruction and frees none until the end: the cyclic
    # collector's passes over them would cost a third of a 50,000-instruction trace, for nothing.
    gc.disable()
    if len(argv) != 3:
        print("usage: python3 -m bnsim_nki.run REQUEST.json OUT.jsonl", file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        request = json.load(f)
    try:
        name, info = trace(request)
    except KernelSourceError as e:
        print(e.line(), file=sys.stderr)
        return 2
    except Refused as e:
        print(str(e), file=sys.stderr)
        return 2
    if not REC.instructions:
        print("%s: %s() issued no instructions" % (REC.display_name(request["source"]), request["function"]), file=sys.stderr)
        return 2
    tmp = argv[2] + ".part"
    try:
        with open(tmp, "w") as out:
            writer.write(out, name, info)
    except KernelSourceError as e:
        os.unlink(tmp)
        print(e.line(), file=sys.stderr)
        return 2
    os.replace(tmp, argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
