"""PyTorch's fp32 BatchNorm backward on the seed shape, for scripts/bench.sh.

Times the backward op alone (aten.native_batch_norm_backward with training statistics, as
autograd calls it), on one thread, minimum of N calls; process start, tensor creation and the
forward statistics are outside the timed region. Prints: wall_s cpu_s peak_rss_kib (wall and
CPU time each the minimum over the calls).
"""
import resource
import sys
import time

import torch

B, C, H, W = (int(v) for v in sys.argv[1:5])
reps = int(sys.argv[5]) if len(sys.argv) > 5 else 7
torch.set_num_threads(1)
g = torch.Generator().manual_seed(1)
x = torch.randn(B, C, H, W, generator=g)
dy = torch.randn(B, C, H, W, generator=g)
gamma = torch.rand(C, generator=g) + 0.5
eps = 1e-5
mean = x.mean(dim=(0, 2, 3))
invstd = 1.0 / torch.sqrt(x.var(dim=(0, 2, 3), unbiased=False) + eps)
wall = cpu = float("inf")
for _ in range(reps):
    t0, c0 = time.perf_counter(), time.process_time()
    dx, dgamma, dbeta = torch.ops.aten.native_batch_norm_backward(
        dy, x, gamma, None, None, mean, invstd, True, eps, [True, True, True])
    wall, cpu = min(wall, time.perf_counter() - t0), min(cpu, time.process_time() - c0)
    del dx, dgamma, dbeta
print(f"{wall:.4f} {cpu:.4f} {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}")
