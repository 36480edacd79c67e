#pragma once
// Storage for the large arrays of a validation (tensors of up to hundreds of MB).
//
// BigVector<T> is a std::vector whose resize() leaves new elements uninitialised (every user
// writes them right after) and whose large blocks are 2 MiB-aligned and advised as transparent
// huge pages: on a VM, first-touch page faults of 4 KiB pages, not arithmetic, otherwise dominate
// a seed-shape run.
#include <cstddef>
#include <cstdlib>
#include <new>
#include <vector>

#include <sys/mman.h>

namespace bnsim::num {

template <typename T>
struct BigAllocator {
    using value_type = T;
    static constexpr size_t kHuge = size_t(2) << 20;

    BigAllocator() = default;
    template <typename U>
    BigAllocator(const BigAllocator<U>&) {}

    T* allocate(size_t n) {
        const size_t bytes = n * sizeof(T);
        if (bytes < 4 * kHuge) {
            void* p = std::malloc(bytes ? bytes : 1);
            if (!p) throw std::bad_alloc();
            return static_cast<T*>(p);
        }
        const size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
        void* p = std::aligned_alloc(kHuge, rounded);
        if (!p) throw std::bad_alloc();
        madvise(p, rounded, MADV_HUGEPAGE);  // advice only: ignore failure
        return static_cast<T*>(p);
    }
    void deallocate(T* p, size_t) { std::free(p); }

    // Default-initialise (no zeroing) on resize().
    template <typename U>
    void construct(U* p) noexcept {
        ::new (static_cast<void*>(p)) U;
    }
    template <typename U, typename... Args>
    void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }

    template <typename U>
    bool operator==(const BigAllocator<U>&) const { return true; }
    template <typename U>
    bool operator!=(const BigAllocator<U>&) const { return false; }
};

template <typename T>
using BigVector = std::vector<T, BigAllocator<T>>;

}  // namespace bnsim::num
