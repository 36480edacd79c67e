#pragma once
// A vector that keeps up to N elements inside itself and moves to the heap only past that. An
// instruction's operand lists hold one or two operands (instruction.h's table), and a trace has
// hundreds of thousands of instructions, each built, copied and freed per simulated point: as
// std::vectors they were two heap blocks per instruction, and their allocation and freeing took
// a fifth of a sensitivity run. For trivially copyable elements only (they are copied bytewise).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace bnsim {

template <class T, size_t N>
class SmallVector {
    static_assert(std::is_trivially_copyable_v<T>, "SmallVector copies its elements bytewise");
    static_assert(N > 0);

public:
    using value_type = T;
    using size_type = size_t;
    using iterator = T*;
    using const_iterator = const T*;
    using reference = T&;
    using const_reference = const T&;

    SmallVector() = default;
    SmallVector(std::initializer_list<T> il) { assign(il.begin(), il.end()); }
    // From a std::vector (a trace file's reader, tests): the same elements.
    SmallVector(const std::vector<T>& v) { assign(v.data(), v.data() + v.size()); }
    SmallVector(const SmallVector& o) { assign(o.begin(), o.end()); }
    SmallVector(SmallVector&& o) noexcept { take(o); }
    ~SmallVector() { release(); }

    SmallVector& operator=(const SmallVector& o) {
        if (this != &o) assign(o.begin(), o.end());
        return *this;
    }
    SmallVector& operator=(SmallVector&& o) noexcept {
        if (this != &o) {
            release();
            take(o);
        }
        return *this;
    }
    SmallVector& operator=(std::initializer_list<T> il) {
        assign(il.begin(), il.end());
        return *this;
    }

    // The elements of [first, last), forward iterators outside this vector's own storage.
    template <class It>
    void assign(It first, It last) {
        const size_t n = size_t(std::distance(first, last));
        size_ = 0;
        reserve(n);
        std::uninitialized_copy(first, last, data());
        size_ = uint32_t(n);
    }

    T* data() { return on_heap() ? heap_ : inline_data(); }
    const T* data() const { return on_heap() ? heap_ : inline_data(); }
    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    size_t capacity() const { return capacity_; }

    T* begin() { return data(); }
    T* end() { return data() + size_; }
    const T* begin() const { return data(); }
    const T* end() const { return data() + size_; }

    T& operator[](size_t i) { return data()[i]; }
    const T& operator[](size_t i) const { return data()[i]; }
    T& at(size_t i) { return i < size_ ? data()[i] : out_of_range(); }
    const T& at(size_t i) const { return i < size_ ? data()[i] : out_of_range(); }
    T& front() { return data()[0]; }
    const T& front() const { return data()[0]; }
    T& back() { return data()[size_ - 1]; }
    const T& back() const { return data()[size_ - 1]; }

    void push_back(const T& v) {
        if (size_ == capacity_) {
            const T copy = v;  // v may be one of this vector's own elements
            reserve(2 * size_t(capacity_));
            ::new (static_cast<void*>(data() + size_)) T(copy);
        } else {
            ::new (static_cast<void*>(data() + size_)) T(v);
        }
        ++size_;
    }
    void clear() { size_ = 0; }
    void reserve(size_t n) {
        if (n <= capacity_) return;
        T* grown = static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(alignof(T))));
        std::memcpy(static_cast<void*>(grown), static_cast<const void*>(data()), size_ * sizeof(T));
        release();
        heap_ = grown;
        capacity_ = uint32_t(n);
    }

    friend bool operator==(const SmallVector& a, const SmallVector& b) {
        return a.size_ == b.size_ && std::equal(a.begin(), a.end(), b.begin());
    }
    // Against a std::vector of the same elements (tests write the expected lists as those).
    friend bool operator==(const SmallVector& a, const std::vector<T>& b) {
        return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
    }

private:
    bool on_heap() const { return capacity_ > N; }
    T* inline_data() { return std::launder(reinterpret_cast<T*>(inline_)); }
    const T* inline_data() const { return std::launder(reinterpret_cast<const T*>(inline_)); }
    [[noreturn]] static T& out_of_range() { throw std::out_of_range("SmallVector::at"); }
    // Frees the heap block, if any, leaving the inline storage (size kept: callers reset it).
    void release() {
        if (on_heap()) ::operator delete(static_cast<void*>(heap_), std::align_val_t(alignof(T)));
        capacity_ = N;
    }
    // o's elements (its heap block, or a copy of its inline ones); o is left empty.
    void take(SmallVector& o) {
        size_ = o.size_;
        if (o.on_heap()) {
            heap_ = o.heap_;
            capacity_ = o.capacity_;
            o.capacity_ = N;
        } else {
            std::memcpy(static_cast<void*>(inline_), static_cast<const void*>(o.inline_), size_ * sizeof(T));
        }
        o.size_ = 0;
    }

    uint32_t size_ = 0;
    uint32_t capacity_ = N;  // N: the elements are inline; more: on the heap
    union {
        alignas(T) unsigned char inline_[N * sizeof(T)];
        T* heap_;
    };
};

}  // namespace bnsim
