#!/usr/bin/env python3
"""Runs a command N times and prints the minimum wall time, minimum CPU time (user + system)
and minimum peak RSS over the runs: "wall_s cpu_s peak_kib".

Usage: min_time.py N OUT CMD [ARGS...]   (the command's standard output goes to the file OUT)

Why not /usr/bin/time: its wall clock has 10 ms resolution, too coarse for runs of 0.05-0.25 s
whose scaling exponent the benchmark fits. Here the wall time comes from time.perf_counter()
around fork/exec/wait, and CPU time and peak RSS from the child's rusage (os.wait4), so each
figure is the command's own, not the sum over earlier runs.
"""
import os
import sys
import time


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    n, out, cmd = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    best = None
    for _ in range(n):
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
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"min_time.py: {' '.join(cmd)} exited with status {os.waitstatus_to_exitcode(status)}")
        run = (wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss)
        best = run if best is None else tuple(min(a, b) for a, b in zip(best, run))
    print(f"{best[0]:.4f} {best[1]:.4f} {best[2]}")


if __name__ == "__main__":
    main()
