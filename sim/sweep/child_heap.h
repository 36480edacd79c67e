#pragma once
// A sweep point runs in a freshly forked process, so every page its heap grows into is touched
// for the first time: a page fault per 4 KiB, about 1,250 per point of the seed grid at some
// 2.5 us each on a VM, a tenth of the sweep's CPU. A worker calls prepare_child_heap() first
// thing after the fork: its heap then grows in transparent huge pages (a fault per 2 MiB) where
// the kernel offers them on request (THP "madvise" or "always"), and memory freed during the
// point stays in the process instead of being unmapped and faulted in again. Only speed changes.
namespace bnsim {

void prepare_child_heap();

}  // namespace bnsim
