// SmallVector (trace/small_vector.h): the elements inline up to N, on the heap past it, with the
// value semantics of a std::vector across copies, moves and growth.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <utility>
#include <vector>

#include "trace/instruction.h"
#include "trace/small_vector.h"

using namespace bnsim;

namespace {
using Small = SmallVector<uint32_t, 2>;
std::vector<uint32_t> as_vector(const Small& s) { return std::vector<uint32_t>(s.begin(), s.end()); }
}  // namespace

TEST_CASE("small vector: elements stay inline up to N and move to the heap past it, in order") {
    Small v;
    CHECK(v.empty());
    CHECK(v.capacity() == 2);
    v.push_back(1);
    v.push_back(2);
    CHECK(v.capacity() == 2);  // still inline
    const uint32_t* inline_at = v.data();
    CHECK(reinterpret_cast<const char*>(inline_at) >= reinterpret_cast<const char*>(&v));
    CHECK(reinterpret_cast<const char*>(inline_at) < reinterpret_cast<const char*>(&v) + sizeof(v));
    for (uint32_t k = 3; k <= 9; ++k) v.push_back(k);
    CHECK(v.capacity() >= 9);
    CHECK(as_vector(v) == std::vector<uint32_t>{1, 2, 3, 4, 5, 6, 7, 8, 9});
    CHECK(v.front() == 1);
    CHECK(v.back() == 9);
    CHECK(v.at(8) == 9);
    CHECK_THROWS_AS(v.at(9), std::out_of_range);
    v.clear();
    CHECK(v.empty());
}

TEST_CASE("small vector: pushing one of its own elements when full copies it before growing") {
    Small v{7, 8};
    v.push_back(v[0]);  // the growth frees the inline copy's place: the value must survive
    CHECK(as_vector(v) == std::vector<uint32_t>{7, 8, 7});
    v.push_back(v[2]);
    v.push_back(v[3]);  // full on the heap (capacity 4): grows again
    CHECK(as_vector(v) == std::vector<uint32_t>{7, 8, 7, 7, 7});
}

TEST_CASE("small vector: copies and moves keep the values and leave the source usable, inline and on the heap") {
    for (const std::vector<uint32_t>& values : {std::vector<uint32_t>{}, std::vector<uint32_t>{4},
                                               std::vector<uint32_t>{4, 5}, std::vector<uint32_t>{4, 5, 6, 7, 8}}) {
        const Small original(values);
        Small copy = original;
        CHECK(copy == values);
        CHECK(original == values);
        if (!values.empty()) {
            copy[0] = 99;  // a copy owns its elements
            CHECK(original[0] == 4);
            copy[0] = 4;
        }
        Small moved = std::move(copy);
        CHECK(moved == values);
        CHECK(copy.empty());  // NOLINT(bugprone-use-after-move): a moved-from list is empty
        copy.push_back(1);
        CHECK(copy == std::vector<uint32_t>{1});

        Small target{1, 2, 3};  // on the heap: assigning over it frees its block
        target = original;
        CHECK(target == values);
        Small into{9};
        into = std::move(target);
        CHECK(into == values);
        const Small& same = into;  // (through a reference: compilers warn on a literal `into = into`)
        into = same;               // self-assignment keeps the values
        CHECK(into == values);
        into = {3, 2, 1};
        CHECK(into == std::vector<uint32_t>{3, 2, 1});
        into.assign(values.begin(), values.end());
        CHECK(into == values);
    }
}

TEST_CASE("small vector: an instruction's operand lists hold the table's two operands inline") {
    Instruction in;
    in.srcs = {sbuf_operand(0, 0, 128, 0, 256, DType::bf16), sbuf_operand(0, 0, 128, 256, 256, DType::fp32)};
    in.dsts = {sbuf_operand(0, 0, 64, 512, 128, DType::fp32)};
    CHECK(in.srcs.capacity() == 2);
    CHECK(in.srcs[1].region.byte_lo == 256);
    CHECK(in.srcs[1].dtype == DType::fp32);
    const Instruction copy = in;
    CHECK(copy.srcs.size() == 2);
    CHECK(copy.srcs[0].dtype == DType::bf16);
    CHECK(copy.dsts[0].region.row_hi == 64);
    CHECK(copy.srcs.data() != in.srcs.data());  // its own storage, inside the copy
    CHECK(sizeof(Instruction) % 64 == 0);
}
