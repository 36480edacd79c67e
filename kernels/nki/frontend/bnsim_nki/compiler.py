"""nki.compiler as the frontend models it: the options that change the stream or its timing."""

from .core import REC, fail


def skip_middle_end_transformations(func=None, **kw):
    """Recorded: the kernel's stream is taken as written (no middle-end rewrites, which the
    frontend never models anyway); the trace header says the kernel asked for it."""
    REC.skip_middle_end = True
    return func if func is not None else (lambda f: f)


def enable_stack_allocator(func=None, **kw):
    return func if func is not None else (lambda f: f)


def __getattr__(name):
    fail("nki.compiler." + name, "a compiler option bnsim's NKI frontend models (docs/nki-frontend.md); "
         "nki.compiler.%s is not modelled" % name)
