#!/usr/bin/env python3
"""Times commands: runs each N times and prints, per command, the minimum wall time, minimum CPU
time (user + system) and minimum peak RSS over its runs: "wall_s cpu_s peak_kib", one line per
command in the order given.

Usage: min_time.py [--raw FILE] N OUT CMD [ARGS...] [--- CMD [ARGS...]]...

Command k's standard output goes to the file OUT.k (OUT itself when there is one command).
Several commands run round-robin (round 1 runs each once, then round 2...), so a stretch of
noise from other work on the machine falls on every command alike instead of on one: the
scaling exponent fitted across them is then not skewed by when each was measured.

--raw FILE also writes every run, one line each: "round command wall_s cpu_s peak_kib" (a
figure fitted per round, from runs made within a second of each other, shows how far the machine's
noise moves it).

Why not /usr/bin/time: its wall clock has 10 ms resolution, too coarse for runs of 0.02-0.1 s.
Here the wall time comes from time.perf_counter() around fork/exec/wait, and CPU time and peak
RSS from the child's own rusage (os.wait4).
"""
import os
import sys
import time


def run_once(cmd, out):
    with open(out, "wb") as f:
        t0 = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            os.dup2(f.fileno(), 1)
            try:
                os.execvp(cmd[0], cmd)
            finally:
                os._exit(127)
        _, status, ru = os.wait4(pid, 0)
        wall = time.perf_counter() - t0
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"min_time.py: {' '.join(cmd)} exited with status {code}")
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss


def main():
    args = sys.argv[1:]
    raw = None
    if args[:1] == ["--raw"] and len(args) > 1:
        raw, args = open(args[1], "w"), args[2:]
    if len(args) < 3:
        sys.exit(__doc__)
    n, out = int(args[0]), args[1]
    cmds, cur = [], []
    for a in args[2:]:
        if a == "---":
            cmds.append(cur)
            cur = []
        else:
            cur.append(a)
    cmds.append(cur)
    if any(not c for c in cmds):
        sys.exit("min_time.py: an empty command")
    outs = [out] if len(cmds) == 1 else [f"{out}.{k}" for k in range(len(cmds))]
    best = [None] * len(cmds)
    for i in range(n):
        for k, cmd in enumerate(cmds):
            r = run_once(cmd, outs[k])
            if raw:
                print(f"{i} {k} {r[0]:.4f} {r[1]:.4f} {r[2]}", file=raw, flush=True)
            best[k] = r if best[k] is None else tuple(min(a, b) for a, b in zip(best[k], r))
    for b in best:
        print(f"{b[0]:.4f} {b[1]:.4f} {b[2]}")


if __name__ == "__main__":
    main()
