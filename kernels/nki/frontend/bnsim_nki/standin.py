"""Installs the stand-in as `nki` and `neuronxcc.nki`: both package names, one set of modules."""

import sys
import types

from . import language, isa, compiler, jit as jit_mod


def package(name):
    m = types.ModuleType(name)
    m.__path__ = []
    m.language, m.isa, m.compiler = language, isa, compiler
    m.jit, m.baremetal, m.benchmark = jit_mod.jit, jit_mod.baremetal, jit_mod.benchmark
    m.simulate_kernel, m.profile = jit_mod.simulate_kernel, jit_mod.profile
    return m


def numpy_standin():
    """For a kernel that imports numpy for its dtypes where numpy is not installed (bnsim needs
    none): numpy's dtype names and shape arithmetic; anything else is refused where it is used."""
    from .core import DTYPES, fail
    np = types.ModuleType("numpy")
    np.__bnsim_standin__ = True
    for name, dt in DTYPES.items():
        setattr(np, name, dt)
    np.dtype = lambda d: language.__dict__.get(d) if isinstance(d, str) and d in DTYPES else d
    np.prod = lambda xs: __import__("math").prod(xs)
    np.product = np.prod

    def missing(name):
        fail("numpy." + name, "numpy itself (not installed for this python3; bnsim's stand-in has dtypes and "
             "numpy.prod only)")
    np.__getattr__ = missing
    return np


def install():
    try:
        import numpy  # noqa: F401  (the real one, where present: kernels may use its dtypes)
    except ImportError:
        sys.modules["numpy"] = numpy_standin()
    nki = package("nki")
    neuronxcc = types.ModuleType("neuronxcc")
    neuronxcc.__path__ = []
    nki2 = package("neuronxcc.nki")
    neuronxcc.nki = nki2
    sys.modules.update({
        "nki": nki, "nki.language": language, "nki.isa": isa, "nki.compiler": compiler,
        "neuronxcc": neuronxcc, "neuronxcc.nki": nki2, "neuronxcc.nki.language": language,
        "neuronxcc.nki.isa": isa, "neuronxcc.nki.compiler": compiler,
    })
