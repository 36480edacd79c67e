"""nki.jit and the launch grid: calling a kernel records it on the current core."""

from .core import fail


class Kernel:
    def __init__(self, func, options):
        self.func, self.options = func, options
        self.__name__ = getattr(func, "__name__", "kernel")
        self.__wrapped__ = func

    def __call__(self, *args, **kwargs):
        return self.func(*args, **kwargs)

    def __getitem__(self, grid):
        # kernel[2](...) / kernel[nl.nc(2)](...): bnsim launches the grid itself (`lnc:` in the
        # run config), so a kernel calling another kernel with a grid runs it on the current core.
        return self


def jit(func=None, mode="auto", **options):
    if func is None:
        return lambda f: Kernel(f, options)
    if isinstance(func, Kernel):
        return func
    if not callable(func):
        fail("nki.jit", "a kernel function to decorate, got %r" % (func,))
    return Kernel(func, options)


baremetal = benchmark = profile = simulate_kernel = trace = jit
