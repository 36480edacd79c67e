#include "kernels/batch_norm_bwd/sbuf_allocator.h"

#include <algorithm>
#include <stdexcept>

#include "kernels/batch_norm_bwd/memory_config.h"

namespace bnsim::bn {

SbufAllocator::SbufAllocator(uint64_t capacity, uint64_t align)
    : capacity_(capacity / align * align), align_(align), heap_bottom_(capacity / align * align) {}

void SbufAllocator::open_scope() { scopes_.push_back(stack_top_); }

void SbufAllocator::close_scope() {
    if (scopes_.empty()) throw std::logic_error("SbufAllocator: close_scope without open_scope");
    stack_top_ = scopes_.back();
    scopes_.pop_back();
}

uint64_t SbufAllocator::alloc(uint64_t bytes) {
    if (scopes_.empty()) throw std::logic_error("SbufAllocator: stack allocation outside a scope");
    uint64_t at = stack_top_;
    stack_top_ += align_up(bytes, align_);
    check_collision();
    return at;
}

uint64_t SbufAllocator::heap_alloc(uint64_t bytes) {
    heap_.push_back(heap_bottom_);
    uint64_t size = align_up(bytes, align_);
    if (size > heap_bottom_) throw std::logic_error("SbufAllocator: heap exhausted");
    heap_bottom_ -= size;
    check_collision();
    return heap_bottom_;
}

void SbufAllocator::heap_pop() {
    if (heap_.empty()) throw std::logic_error("SbufAllocator: heap_pop on an empty heap");
    heap_bottom_ = heap_.back();
    heap_.pop_back();
}

void SbufAllocator::check_collision() {
    if (stack_top_ > heap_bottom_)
        throw std::logic_error("SbufAllocator: stack and heap collide (" +
                               std::to_string(stack_top_) + " > " + std::to_string(heap_bottom_) + ")");
    peak_ = std::max(peak_, live_bytes());
}

}  // namespace bnsim::bn
