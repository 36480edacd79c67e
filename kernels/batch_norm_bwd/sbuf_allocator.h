#pragma once
// The kernel's SBUF manager for one partition's bytes: a stack growing up from 0 inside named
// scopes (closing a scope frees what it allocated) and a heap growing down from the top whose
// blocks are popped explicitly. Heap blocks survive scope changes, which is how the direct_x
// slots live across the two phases.
#include <cstdint>
#include <string>
#include <vector>

namespace bnsim::bn {

class SbufAllocator {
public:
    SbufAllocator(uint64_t capacity, uint64_t align);

    void open_scope();
    void close_scope();
    uint64_t alloc(uint64_t bytes);       // stack; returns the byte offset
    uint64_t heap_alloc(uint64_t bytes);  // heap; returns the byte offset
    void heap_pop();                      // frees the most recent heap block

    uint64_t live_bytes() const { return stack_top_ + (capacity_ - heap_bottom_); }
    uint64_t peak_bytes() const { return peak_; }
    int open_scopes() const { return int(scopes_.size()); }
    int heap_blocks() const { return int(heap_.size()); }

private:
    uint64_t capacity_, align_;
    uint64_t stack_top_ = 0, heap_bottom_;
    uint64_t peak_ = 0;
    std::vector<uint64_t> scopes_;  // stack top when each scope opened
    std::vector<uint64_t> heap_;    // heap bottom before each block
    void check_collision();
};

}  // namespace bnsim::bn
