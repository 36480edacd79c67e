#include "numerics/executor.h"

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "numerics/bf16.h"

namespace bnsim::num {
namespace {

// Elementwise kernels: one switch per row, then a plain loop per operation, so the compiler
// can vectorize them (a switch per element cannot be). Each loop performs exactly the fp32
// operation of the engine, element by element.
template <typename F>
void each(float* a, const float* b, size_t n, F f) {
    for (size_t k = 0; k < n; ++k) a[k] = f(a[k], b[k]);
}
template <typename F>
void each(float* a, float s, size_t n, F f) {
    for (size_t k = 0; k < n; ++k) a[k] = f(a[k], s);
}

// a[k] = a[k] op b[k] for an array b, or a[k] op b for a per-partition scalar b.
template <typename B>
void alu(AluOp op, float* a, B b, size_t n) {
    switch (op) {
    case AluOp::bypass: return;
    case AluOp::add: return each(a, b, n, [](float x, float y) { return x + y; });
    case AluOp::subtract: return each(a, b, n, [](float x, float y) { return x - y; });
    case AluOp::rsubtract: return each(a, b, n, [](float x, float y) { return y - x; });
    case AluOp::mult: return each(a, b, n, [](float x, float y) { return x * y; });
    case AluOp::max: return each(a, b, n, [](float x, float y) { return x > y ? x : y; });
    case AluOp::is_gt: return each(a, b, n, [](float x, float y) { return x > y ? 1.0f : 0.0f; });
    }
}

void act(ActFunc f, float* v, size_t n) {
    switch (f) {
    case ActFunc::copy: return;
    case ActFunc::rsqrt:
        for (size_t k = 0; k < n; ++k) v[k] = 1.0f / std::sqrt(v[k]);
        return;
    case ActFunc::exp:
        for (size_t k = 0; k < n; ++k) v[k] = std::exp(v[k]);
        return;
    case ActFunc::sigmoid:
        for (size_t k = 0; k < n; ++k) v[k] = 1.0f / (1.0f + std::exp(-v[k]));
        return;
    case ActFunc::relu:
        for (size_t k = 0; k < n; ++k) v[k] = v[k] > 0.0f ? v[k] : 0.0f;
        return;
    }
}

[[noreturn]] void shape_error(const Instruction& ins, const std::string& what) {
    throw std::logic_error("numerics: instruction " + std::to_string(ins.id) + " (" + opcode_name(ins.opcode) +
                           " '" + ins.tag.what + "'): " + what);
}

void check_same(const Instruction& ins, const Operand& a, const Operand& b, const char* what) {
    if (a.region.rows() != b.region.rows() || a.elems_per_row() != b.elems_per_row())
        shape_error(ins, std::string(what) + ": operand shapes differ ([" + std::to_string(a.region.rows()) + ", " +
                             std::to_string(a.elems_per_row()) + "] vs [" + std::to_string(b.region.rows()) + ", " +
                             std::to_string(b.elems_per_row()) + "])");
}

}  // namespace

FunctionalExecutor::FunctionalExecutor(DeviceMemory& mem, ExecutorOptions opts) : mem_(mem), opts_(opts) {
    acc_.assign(size_t(mem.num_cores()), std::vector<float>(128, 0.0f));
}

std::vector<float> FunctionalExecutor::read(const Operand& op) const {
    std::vector<float> out;
    read_into(op, out);
    return out;
}

void FunctionalExecutor::read_into(const Operand& op, std::vector<float>& out) const {
    const uint32_t rows = op.region.rows();
    const size_t n = size_t(op.elems_per_row());
    out.resize(size_t(rows) * n);
    const DeviceMemory& mem = mem_;  // reads go through the const row(): inputs may be lent read-only
    for (uint32_t i = 0; i < rows; ++i) load_elems(mem.row(op.region, i), op.dtype, n, out.data() + size_t(i) * n);
}

std::vector<uint8_t> FunctionalExecutor::take_bytes(size_t n) {
    std::vector<uint8_t> v;
    if (!byte_pool_.empty()) {
        v = std::move(byte_pool_.back());
        byte_pool_.pop_back();
    }
    v.resize(n);
    return v;
}

std::vector<float> FunctionalExecutor::scalar(const ScalarArg& s, uint32_t rows, bool operand_path) const {
    if (!s.column) return std::vector<float>(rows, s.imm);
    std::vector<float> v = read(*s.column);
    if (v.size() != rows)
        throw std::logic_error("numerics: a per-partition scalar column has " + std::to_string(v.size()) +
                               " rows for an operation on " + std::to_string(rows) + " partitions");
    if (operand_path)
        for (float& x : v) x = round_to_bits(x, opts_.scale_bias_operand_bits);
    return v;
}

FunctionalExecutor::Write FunctionalExecutor::encode(const Operand& dst, const std::vector<float>& values) {
    Write w;
    w.region = dst.region;
    const size_t n = size_t(dst.elems_per_row());
    const size_t bpr = size_t(dst.region.bytes_per_row());
    if (values.size() != n * dst.region.rows()) throw std::logic_error("numerics: result size mismatch");
    w.bytes = take_bytes(bpr * dst.region.rows());
    for (uint32_t i = 0; i < dst.region.rows(); ++i)
        store_elems(values.data() + size_t(i) * n, dst.dtype, n, w.bytes.data() + size_t(i) * bpr);
    return w;
}

FunctionalExecutor::Write FunctionalExecutor::copy_bytes(const Operand& dst, const Operand& src) {
    if (src.dtype != dst.dtype) {
        read_into(src, a_);
        return encode(dst, a_);
    }
    Write w;
    w.region = dst.region;
    const size_t bpr = size_t(dst.region.bytes_per_row());
    w.bytes = take_bytes(bpr * dst.region.rows());
    const DeviceMemory& mem = mem_;
    for (uint32_t i = 0; i < dst.region.rows(); ++i) std::memcpy(w.bytes.data() + i * bpr, mem.row(src.region, i), bpr);
    return w;
}

FunctionalExecutor::Pending FunctionalExecutor::compute(const Instruction& ins) {
    Pending p;
    auto need = [&](size_t ns, size_t nd) {
        if (ins.srcs.size() < ns || ins.dsts.size() < nd) shape_error(ins, "missing operands");
    };
    switch (ins.opcode) {
    case Opcode::DmaCopy:
    case Opcode::NcStreamShuffle:
    case Opcode::TensorCopy: {
        need(1, 1);
        check_same(ins, ins.srcs[0], ins.dsts[0], "copy");
        p.writes.push_back(copy_bytes(ins.dsts[0], ins.srcs[0]));
        break;
    }
    case Opcode::SendRecv: {
        // srcs = [own send column, the peer's send column]: the receive buffer gets the peer's.
        need(2, 1);
        check_same(ins, ins.srcs[1], ins.dsts[0], "sendrecv");
        p.writes.push_back(copy_bytes(ins.dsts[0], ins.srcs[1]));
        break;
    }
    case Opcode::Activation: {
        need(1, 1);
        const Operand& in = ins.srcs[0];
        check_same(ins, in, ins.dsts[0], "activation");
        const uint32_t rows = in.region.rows();
        const size_t n = size_t(in.elems_per_row());
        std::vector<float>& v = a_;
        read_into(in, v);
        const std::vector<float> sc = scalar(ins.scalar[0], rows, true);
        const std::vector<float> bi = scalar(ins.scalar[1], rows, true);
        const bool acc = ins.accumulate != Accumulate::none;
        const std::vector<float>& regs = acc_.at(ins.core);
        if (acc) {
            if (rows > regs.size()) shape_error(ins, "more partitions than reduce registers");
            p.writes_acc = true;
            p.acc.resize(rows);
        }
        for (uint32_t i = 0; i < rows; ++i) {
            float* r = v.data() + size_t(i) * n;
            const float s = sc[i], b = bi[i];
            for (size_t j = 0; j < n; ++j) {
                float t = r[j] * s;
                r[j] = t + b;
            }
            act(ins.act_func, r, n);
            if (acc) {
                float a = ins.accumulate == Accumulate::accumulate ? regs[i] : 0.0f;
                for (size_t j = 0; j < n; ++j) a += r[j];
                p.acc[i] = a;
            }
        }
        p.writes.push_back(encode(ins.dsts[0], v));
        if (ins.acc_readout) {
            if (ins.dsts.size() < 2) shape_error(ins, "acc_readout without a readout destination");
            const Operand& ro = ins.dsts[1];
            if (ro.elems_per_row() != 1 || ro.region.rows() > 128) shape_error(ins, "readout is not a [P, 1] column");
            std::vector<float> vals(ro.region.rows());
            for (uint32_t i = 0; i < ro.region.rows(); ++i) vals[i] = (acc && i < rows) ? p.acc[i] : regs[i];
            p.writes.push_back(encode(ro, vals));
        }
        break;
    }
    case Opcode::TensorTensor: {
        need(2, 1);
        check_same(ins, ins.srcs[0], ins.dsts[0], "tensor_tensor in0");
        check_same(ins, ins.srcs[1], ins.dsts[0], "tensor_tensor in1");
        std::vector<float>& a = a_;
        std::vector<float>& b = b_;
        read_into(ins.srcs[0], a);
        read_into(ins.srcs[1], b);
        alu(ins.alu[0], a.data(), b.data(), a.size());
        p.writes.push_back(encode(ins.dsts[0], a));
        break;
    }
    case Opcode::TensorScalar: {
        need(1, 1);
        check_same(ins, ins.srcs[0], ins.dsts[0], "tensor_scalar");
        const uint32_t rows = ins.srcs[0].region.rows();
        const size_t n = size_t(ins.srcs[0].elems_per_row());
        std::vector<float>& a = a_;
        read_into(ins.srcs[0], a);
        const std::vector<float> s0 = scalar(ins.scalar[0], rows, false);
        const std::vector<float> s1 = scalar(ins.scalar[1], rows, false);
        for (uint32_t i = 0; i < rows; ++i) {
            float* x = a.data() + size_t(i) * n;
            alu(ins.alu[0], x, s0[i], n);
            alu(ins.alu[1], x, s1[i], n);
        }
        p.writes.push_back(encode(ins.dsts[0], a));
        break;
    }
    case Opcode::ScalarTensorTensor: {
        need(2, 1);
        check_same(ins, ins.srcs[0], ins.dsts[0], "scalar_tensor_tensor in0");
        check_same(ins, ins.srcs[1], ins.dsts[0], "scalar_tensor_tensor in1");
        const uint32_t rows = ins.srcs[0].region.rows();
        const size_t n = size_t(ins.srcs[0].elems_per_row());
        std::vector<float>& a = a_;
        std::vector<float>& b = b_;
        read_into(ins.srcs[0], a);
        read_into(ins.srcs[1], b);
        const std::vector<float> s = scalar(ins.scalar[0], rows, false);
        for (uint32_t i = 0; i < rows; ++i) {
            const size_t k = size_t(i) * n;
            alu(ins.alu[0], a.data() + k, s[i], n);
            alu(ins.alu[1], a.data() + k, b.data() + k, n);
        }
        p.writes.push_back(encode(ins.dsts[0], a));
        break;
    }
    case Opcode::TensorReduce: {
        need(1, 1);
        const Operand& in = ins.srcs[0];
        const Operand& out = ins.dsts[0];
        if (out.region.rows() != in.region.rows() || out.elems_per_row() != 1)
            shape_error(ins, "tensor_reduce output is not a [P, 1] column of its input");
        const uint32_t rows = in.region.rows();
        const size_t n = size_t(in.elems_per_row());
        std::vector<float>& a = a_;
        read_into(in, a);
        std::vector<float> r(rows);
        for (uint32_t i = 0; i < rows; ++i) {
            const float* x = a.data() + size_t(i) * n;
            float s = 0.0f;
            if (ins.alu[0] == AluOp::max) {
                s = -INFINITY;
                for (size_t j = 0; j < n; ++j) s = x[j] > s ? x[j] : s;
            } else {
                for (size_t j = 0; j < n; ++j) s += x[j];
            }
            r[i] = s;
        }
        p.writes.push_back(encode(out, r));
        break;
    }
    }
    return p;
}

void FunctionalExecutor::on_start(const Instruction& ins, double) {
    mem_.acquire(ins);
    ++started_;
    pending_[ins.id] = compute(ins);
}

void FunctionalExecutor::on_finish(const Instruction& ins, double) {
    auto it = pending_.find(ins.id);
    if (it == pending_.end())
        throw std::logic_error("numerics: instruction " + std::to_string(ins.id) + " finished without starting");
    Pending& p = it->second;
    for (const Write& w : p.writes) {
        const size_t bpr = size_t(w.region.bytes_per_row());
        for (uint32_t i = 0; i < w.region.rows(); ++i) std::memcpy(mem_.row(w.region, i), w.bytes.data() + i * bpr, bpr);
    }
    for (Write& w : p.writes) byte_pool_.push_back(std::move(w.bytes));
    if (p.writes_acc) {
        auto& regs = acc_.at(ins.core);
        for (size_t i = 0; i < p.acc.size(); ++i) regs[i] = p.acc[i];
    }
    pending_.erase(it);
    mem_.release(ins);
    ++finished_;
}

}  // namespace bnsim::num
