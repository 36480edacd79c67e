// vector_add's numerics entry: validation passes on the M4 configs, a wrong result is caught,
// and the reference adds what the kernel's tiles add (worked by hand).
#include <catch2/catch.hpp>

#include <cstring>

#include "kernels/calibration/vector_add/numerics.h"
#include "numerics/runners.h"
#include "sim/config/run_config.h"

using namespace bnsim;

namespace {

const std::string kM4 = std::string(BNSIM_SOURCE_DIR) + "/configs/calibration/m4_vector_add_free200.yaml";

KernelValidation validate_m4(num::Runner run, const Overrides& sets = {}) {
    RunConfig cfg = load_run_config(kM4, sets);
    REQUIRE(cfg.entry->numerics);
    GeneratedKernel k = cfg.generate();
    ValidateRequest req;
    req.trace = &k.trace;
    req.params = &cfg.kernel_params;
    req.target = cfg.target();
    req.run = std::move(run);
    req.settings.scale_bias_operand_bits = cfg.hw.numerics.scale_bias_operand_bits;
    return cfg.entry->numerics->validate(req);
}

// Runs the trace in program order but never executes its adds: c keeps whatever the SBUF held.
void skip_adds(const Trace& t, ExecutionObserverIF& obs) {
    struct SkipAdds : ExecutionObserverIF {
        ExecutionObserverIF& inner;
        explicit SkipAdds(ExecutionObserverIF& o) : inner(o) {}
        void on_start(const Instruction& in, double ns) override {
            if (std::strcmp(in.tag.what, "add") != 0) inner.on_start(in, ns);
        }
        void on_finish(const Instruction& in, double ns) override {
            if (std::strcmp(in.tag.what, "add") != 0) inner.on_finish(in, ns);
        }
    } skip(obs);
    num::run_sequential(t, skip);
}

}  // namespace

TEST_CASE("vector_add numerics: the M4 kernel validates with no hazards") {
    for (const char* op : {"tensor_tensor", "tensor_scalar"}) {
        INFO(op);
        const KernelValidation v = validate_m4(num::run_sequential, {{"vector_add.op", op}});
        REQUIRE(v.result.outputs.size() == 1);
        CHECK(v.result.outputs[0].name == "c");
        CHECK(v.result.outputs[0].kernel_pass);
        CHECK(v.result.outputs[0].oracle_pass);
        CHECK(v.result.hazards.empty());
        CHECK(v.result.pass);
    }
}

TEST_CASE("vector_add numerics: a wrong result is caught") {
    const KernelValidation v = validate_m4(skip_adds);
    REQUIRE(v.result.outputs.size() == 1);
    CHECK_FALSE(v.result.outputs[0].kernel_pass);
    CHECK(v.result.outputs[0].oracle_pass);  // the oracle still computes a + b
    CHECK_FALSE(v.result.pass);
}

TEST_CASE("vector_add numerics: the reference adds elementwise, or each tile's first b column") {
    cal::VectorAddParams p;
    p.n = 8;
    p.partitions = 2;
    p.free = 2;  // each partition row [4] in two tiles of 2
    const std::vector<float> a{1, 2, 3, 4, 5, 6, 7, 8}, b{10, 20, 30, 40, 50, 60, 70, 80};
    p.op = Opcode::TensorTensor;
    CHECK(cal::vector_add_reference(p, a, b) == std::vector<double>{11, 22, 33, 44, 55, 66, 77, 88});
    // tensor_scalar: row 0 tiles use b[0] = 10 and b[2] = 30; row 1 tiles b[4] = 50, b[6] = 70.
    p.op = Opcode::TensorScalar;
    CHECK(cal::vector_add_reference(p, a, b) == std::vector<double>{11, 12, 33, 34, 55, 56, 77, 78});
}

TEST_CASE("vector_add numerics: bnsim validate passes on the M4 config") {
    const std::string cmd = std::string(BNSIM_BINARY) + " validate " + kM4 + " > /dev/null 2>&1";
    CHECK(std::system(cmd.c_str()) == 0);
}
