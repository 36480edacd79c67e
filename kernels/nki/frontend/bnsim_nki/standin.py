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


def install():
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
