// The functional executor computes an instruction's results when it finishes, straight into
// memory, unless something overwrites its inputs while it is in flight: it must still see its
// inputs as they were when it started (traces of a few SBUF instructions, run in chosen orders).
// Large instructions share their rows with helper threads: the bytes do not depend on how many.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "kernels/batch_norm_bwd/numerics/inputs.h"
#include "numerics/device_memory.h"
#include "numerics/executor.h"
#include "numerics/hbm_io.h"
#include "numerics/row_sums.h"
#include "numerics/runners.h"
#include "numerics/work_share.h"
#include "numerics_test_util.h"
#include "trace/trace.h"

using namespace bnsim;

namespace {

constexpr int kPartitions = 4;
constexpr uint64_t kBpp = 64;  // bytes per partition: 16 fp32 values

Instruction copy_op(Opcode op, Operand src, Operand dst) {
    Instruction in;
    in.opcode = op;
    in.engine = Engine::Act;
    in.srcs = {src};
    in.dsts = {dst};
    return in;
}

Operand fp32(uint32_t p0, uint32_t p1, uint64_t addr, uint64_t elems) {
    return sbuf_operand(0, p0, p1, addr, elems * 4, DType::fp32);
}

void put(num::DeviceMemory& mem, const Operand& o, uint32_t row, const std::vector<float>& v) {
    std::memcpy(mem.row(o.region, row), v.data(), v.size() * 4);
}

std::vector<float> get(const num::DeviceMemory& mem, const Operand& o, uint32_t row) {
    std::vector<float> v(size_t(o.elems_per_row()));
    std::memcpy(v.data(), mem.row(o.region, row), v.size() * 4);
    return v;
}

}  // namespace

TEST_CASE("executor: an instruction reads its inputs as they were when it started") {
    Trace t;
    const Operand a = fp32(0, 1, 0, 2), b = fp32(0, 1, 8, 2), c = fp32(0, 1, 16, 2);
    t.append(copy_op(Opcode::TensorCopy, a, c));  // 0: c = a
    t.append(copy_op(Opcode::TensorCopy, b, a));  // 1: a = b, finishing while 0 is in flight
    // 2: c2 = a + b (tensor_tensor), with a overwritten (by 3) while it is in flight.
    const Operand c2 = fp32(1, 2, 0, 2), a2 = fp32(1, 2, 8, 2), b2 = fp32(1, 2, 16, 2);
    Instruction add;
    add.opcode = Opcode::TensorTensor;
    add.engine = Engine::Dve;
    add.srcs = {a2, b2};
    add.dsts = {c2};
    add.alu[0] = AluOp::add;
    t.append(add);
    t.append(copy_op(Opcode::TensorCopy, b2, a2));  // 3: a2 = b2
    for (bool overlapped : {true, false}) {
        INFO((overlapped ? "writer finishes while the reader is in flight" : "one after the other"));
        num::DeviceMemory mem(t, kPartitions, kBpp);
        num::FunctionalExecutor ex(mem, {});
        put(mem, a, 0, {1, 2});
        put(mem, b, 0, {30, 40});
        put(mem, a2, 0, {5, 6});
        put(mem, b2, 0, {100, 200});
        const auto& ins = t.instructions();
        if (overlapped) {
            for (int reader : {0, 2}) {
                ex.on_start(ins[size_t(reader)], 0);
                ex.on_start(ins[size_t(reader) + 1], 1);
                ex.on_finish(ins[size_t(reader) + 1], 2);
                ex.on_finish(ins[size_t(reader)], 3);
            }
        } else {
            for (const Instruction& in : ins) {
                ex.on_start(in, 0);
                ex.on_finish(in, 1);
            }
        }
        CHECK(get(mem, c, 0) == std::vector<float>{1, 2});  // a before it was overwritten
        CHECK(get(mem, a, 0) == std::vector<float>{30, 40});
        CHECK(get(mem, c2, 0) == std::vector<float>{105, 206});
        CHECK(get(mem, a2, 0) == std::vector<float>{100, 200});
        CHECK(ex.finished() == 4);
    }
}

TEST_CASE("executor: a copy onto its own source shifted by a partition moves every row once") {
    Trace t;
    // Partitions [0, 3) -> [1, 4) at the same bytes: written row by row, row 1 would be
    // overwritten before it is read.
    t.append(copy_op(Opcode::TensorCopy, fp32(0, 3, 0, 3), fp32(1, 4, 0, 3)));
    // Onto its own source at the same partitions, 4 bytes on: each row is read whole before it
    // is written.
    Instruction scale = copy_op(Opcode::TensorScalar, fp32(0, 4, 12, 2), fp32(0, 4, 16, 2));
    scale.alu[0] = AluOp::mult;
    scale.scalar[0].imm = 2.0f;
    t.append(scale);
    CHECK(num::stages_own_results(t.instructions()[0]));
    CHECK_FALSE(num::stages_own_results(t.instructions()[1]));
    num::DeviceMemory mem(t, kPartitions, kBpp);
    num::FunctionalExecutor ex(mem, {});
    const Operand all = fp32(0, 4, 0, 6);
    for (uint32_t p = 0; p < 4; ++p)
        put(mem, all, p, {float(p), float(p) + 0.5f, float(p) + 0.25f, float(10 * p), 7, 9});
    for (const Instruction& in : t.instructions()) {
        ex.on_start(in, 0);
        ex.on_finish(in, 1);
    }
    CHECK(get(mem, all, 0) == std::vector<float>{0, 0.5f, 0.25f, 0, 0, 14});
    for (uint32_t p = 1; p < 4; ++p) {
        INFO("partition " << p);
        const float q = float(p - 1);
        CHECK(get(mem, all, p) == std::vector<float>{q, q + 0.5f, q + 0.25f, float(10 * p), float(20 * p), 14});
    }
}

TEST_CASE("executor: an accumulating activation sees the reduce registers as they were when it started") {
    Trace t;
    const Operand x = fp32(0, 2, 0, 2), y = fp32(0, 2, 8, 2), z = fp32(0, 2, 16, 2);
    auto activation = [&](Accumulate acc, Operand dst) {
        Instruction in = copy_op(Opcode::Activation, x, dst);
        in.scalar[0].imm = 1.0f;
        in.accumulate = acc;
        return in;
    };
    t.append(activation(Accumulate::reset_accumulate, y));       // 0: registers = row sums of x
    t.append(activation(Accumulate::accumulate, z));  // 1: registers += row sums of x
    Instruction readout = activation(Accumulate::accumulate, z);
    readout.acc_readout = true;
    readout.dsts.push_back(fp32(0, 2, 24, 1));  // 2: registers += sums, written out
    t.append(readout);
    t.append(activation(Accumulate::reset_accumulate, y));  // 3: reset, finishing while 2 is in flight
    num::DeviceMemory mem(t, kPartitions, kBpp);
    num::FunctionalExecutor ex(mem, {});
    put(mem, x, 0, {1, 2});
    put(mem, x, 1, {10, 20});
    const auto& ins = t.instructions();
    for (int i : {0, 1}) {
        ex.on_start(ins[size_t(i)], 0);
        ex.on_finish(ins[size_t(i)], 1);
    }
    ex.on_start(ins[2], 2);
    ex.on_start(ins[3], 3);
    ex.on_finish(ins[3], 4);
    ex.on_finish(ins[2], 5);
    // Instruction 2 added to the registers as they stood at its start (two sums), not after 3's reset.
    CHECK(get(mem, fp32(0, 2, 24, 1), 0) == std::vector<float>{9});
    CHECK(get(mem, fp32(0, 2, 24, 1), 1) == std::vector<float>{90});
}

TEST_CASE("work share: every item runs once per loop, on any number of helpers, and errors reach the caller") {
    for (int helpers : {0, 1, 3}) {
        INFO(helpers << " helpers");
        num::WorkShare share(helpers);
        CHECK(share.helpers() == helpers);
        std::vector<int> hits(97, 0);
        for (int loop = 0; loop < 200; ++loop)  // many short loops: helpers wake late or not at all
            share.run(hits.size(), [&](size_t i) { ++hits[i]; });
        CHECK(std::count(hits.begin(), hits.end(), 200) == 97);
        share.run(0, [&](size_t) { FAIL("no items"); });
        CHECK_THROWS_WITH(share.run(10,
                                    [](size_t i) {
                                        if (i == 7) throw std::runtime_error("item 7");
                                    }),
                          "item 7");
        int after = 0;
        share.run(3, [&](size_t) { after += 0; });  // usable after an error
        CHECK(after == 0);
    }
}

TEST_CASE("executor: the kernel's outputs are the same bytes whether one thread or several compute its rows") {
    RunConfig cfg = test::numerics_config(test::small(8, 96, {{"shape.H", "32"}, {"shape.W", "32"}}));
    GeneratedKernel k = cfg.generate();
    const bn::Params& p = kernel_params<bn::Params>(cfg.kernel_params);
    const bn::BnInputs in = bn::generate_inputs(p, p.inputs);
    std::vector<std::vector<uint8_t>> outputs;
    for (int threads : {1, 2, 4}) {
        num::DeviceMemory mem(k.trace, cfg.hw.sbuf.partitions, cfg.hw.sbuf.usable_bytes_per_partition);
        num::put_tensor(mem, k.trace, "dy", in.dy);
        num::put_tensor(mem, k.trace, "x_in", in.x_in);
        for (const char* col : {"means", "variances", "gamma", "beta"}) {
            const std::vector<float>& v = col[0] == 'm' ? in.means : col[0] == 'v' ? in.variances
                                        : col[0] == 'g' ? in.gamma : in.beta;
            num::put_tensor(mem, k.trace, col, v.data(), v.size());
        }
        num::ExecutorOptions eo;
        eo.threads = threads;
        num::FunctionalExecutor ex(mem, eo);
        num::run_sequential(k.trace, ex);
        std::vector<uint8_t> all;
        for (const char* name : {"dx", "dgamma", "dbeta"}) {
            const auto& b = mem.hbm(k.trace.find_tensor(name)->id);
            all.insert(all.end(), b.begin(), b.end());
        }
        outputs.push_back(std::move(all));
    }
    REQUIRE(outputs[0].size() > 8 * 96 * 32 * 32);
    CHECK(outputs[1] == outputs[0]);
    CHECK(outputs[2] == outputs[0]);
    // and the output is a real result, not the unwritten NaN fill
    CHECK(std::count(outputs[0].begin(), outputs[0].end(), uint8_t(0xff)) < int64_t(outputs[0].size() / 100));
}

TEST_CASE("add_rows_in_order: each row's sum in element order, eight rows side by side", "[numerics][executor]") {
    // 19 rows (two groups of eight and three on their own) of 37 elements (four blocks of eight
    // and five on their own), 41 apart; values over many binades so that the order shows.
    const size_t rows = 19, n = 37, stride = 41;
    std::vector<float> x(rows * stride);
    for (size_t i = 0; i < x.size(); ++i)
        x[i] = float((i % 7 == 0 ? 1e6 : 1.0) * std::sin(0.9 * double(i)) + (i % 5 == 0 ? 1e-3 : 0.0));
    std::vector<float> got(rows), want(rows);
    for (size_t k = 0; k < rows; ++k) got[k] = want[k] = float(k) * 0.5f;
    for (size_t k = 0; k < rows; ++k)
        for (size_t j = 0; j < n; ++j) want[k] += x[k * stride + j];
    num::add_rows_in_order(x.data(), stride, rows, n, got.data());
    CHECK(std::memcmp(got.data(), want.data(), rows * sizeof(float)) == 0);
}
