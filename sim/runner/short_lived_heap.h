#pragma once
// A `bnsim run` is a short-lived process. Every page its heap grows into is touched for the
// first time: a page fault per 4 KiB, some 2.5 us each on a VM (8,000 faults, about 8% of a
// C=512 `bnsim run`). A forked worker's job runs on its own thread's heap instead
// (sim/runner/worker_pool.cpp). prepare_short_lived_heap(), called first thing, lets the heap grow in
// transparent huge pages (a fault per 2 MiB) where the kernel offers them on request (THP
// "madvise" or "always"), and keeps memory freed during the run in the process instead of
// unmapping it and faulting it in again. Only speed changes. Not for `validate`, whose peak
// memory is a reported figure that huge pages would round up.
namespace bnsim {

void prepare_short_lived_heap();

}  // namespace bnsim
