// kernels/trace_cache.h in memory: the kernels a process made from an outside program's traces,
// which a fit's children inherit instead of reading and deriving the trace again. Kept by key,
// the eight most recent, each handed out as a copy; only kernels with an outside tracer offer
// the hook that fills it.
#include <catch2/catch.hpp>

#include <string>

#include "kernels/trace_cache.h"
#include "sim/config/run_config.h"
#include "tests/source_paths.h"

using namespace bnsim;

namespace {

GeneratedKernel remembered_test_kernel(size_t n) {
    GeneratedKernel g;
    for (size_t i = 0; i < n; ++i) {
        Instruction in;
        in.engine = Engine::Dve;
        g.trace.append(in);
    }
    g.measured_bytes = n;
    return g;
}

}  // namespace

TEST_CASE("trace cache in memory: kernels by key, the eight most recent, each a copy") {
    const std::string prefix = "test_trace_cache key ";
    for (size_t k = 1; k <= 9; ++k) remember_kernel(prefix + std::to_string(k), remembered_test_kernel(k));
    // The ninth pushed out the first; the others are there with their own contents.
    CHECK_FALSE(is_remembered(prefix + "1"));
    CHECK_FALSE(remembered_kernel(prefix + "1"));
    for (size_t k = 2; k <= 9; ++k) {
        INFO(k);
        REQUIRE(is_remembered(prefix + std::to_string(k)));
        const auto g = remembered_kernel(prefix + std::to_string(k));
        REQUIRE(g);
        CHECK(g->trace.size() == k);
        CHECK(g->measured_bytes == k);
    }
    // A copy: changing it leaves the kept one alone; a key kept again keeps the first kernel.
    auto g = remembered_kernel(prefix + "5");
    g->measured_bytes = 99;
    remember_kernel(prefix + "5", remembered_test_kernel(7));
    CHECK(remembered_kernel(prefix + "5")->measured_bytes == 5);
    CHECK(remembered_kernel(prefix + "5")->trace.size() == 5);
}

TEST_CASE("trace cache in memory: only a kernel traced by an outside program has keep_traced") {
    // The NKI kernel's frontend is a Python process; the C++ kernels trace in place. With no
    // command trace folder open nothing was traced before, so nothing is taken into memory.
    CHECK(load_run_config(kSrc + "/configs/nki/vector_add.yaml").keep_traced());
    CHECK_FALSE(load_run_config(kSrc + "/configs/default.yaml").keep_traced());
}
