#include "sim/runner/short_lived_heap.h"

#include "sim/runner/under_asan.h"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <climits>
#include <cstdint>
#include <fstream>

namespace bnsim {

namespace {

// Heap made eligible for huge pages up front: only address space until touched. A run that
// needs more grows in 4 KiB pages (a C=1024 run peaks at 48 MiB, a seed-grid point under 30 MiB).
constexpr size_t kReserve = size_t(256) << 20;

// The kernel's transparent huge page size, or 0 when it has none.
size_t huge_page_bytes() {
    std::ifstream f("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size");
    size_t n = 0;
    return f >> n ? n : 0;
}

uintptr_t align_up(uintptr_t v, uintptr_t a) { return (v + a - 1) / a * a; }

}  // namespace

void prepare_short_lived_heap() {
    if (BNSIM_UNDER_ASAN) return;  // the sanitizer's allocator is not glibc's
    // Every block from the heap (no fresh mapping per large vector, and the reserve below is one
    // heap block) and nothing given back: the process ends with the run.
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, INT_MAX);
    const size_t huge = huge_page_bytes();
    const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
    if (huge == 0 || huge > kReserve / 4 || page == 0 || huge % page) return;
    // Let the heap's next growth begin one page below a huge-page boundary. malloc writes its
    // block header on that page; a 2 MiB range touched before madvise would stay in 4 KiB pages,
    // so the ranges from the boundary on must stay untouched until they are marked.
    const uintptr_t end = uintptr_t(sbrk(0));
    const uintptr_t start = align_up(end + page, huge) - page;
    if (end == uintptr_t(-1) || (start > end && sbrk(intptr_t(start - end)) == reinterpret_cast<void*>(-1))) return;
    void* block = malloc(kReserve);  // grows the heap by the reserve; untouched but its header
    if (!block) return;
    const uintptr_t lo = align_up(uintptr_t(block), huge), hi = (uintptr_t(block) + kReserve) / huge * huge;
    if (hi > lo) madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_HUGEPAGE);  // failing, 4 KiB pages
    free(block);  // back to the heap's top, where the run's allocations now come from
}

}  // namespace bnsim
