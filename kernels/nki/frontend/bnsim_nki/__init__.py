"""bnsim's NKI frontend: a recording stand-in for nki / nki.language / nki.isa / nki.compiler.

Run a kernel file through it with `python3 -m bnsim_nki.run` (bnsim's `kernel: nki` does);
see docs/nki-frontend.md for what it models and docs/trace-format.md for what it writes.
"""
