#include "numerics/executor.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "numerics/bf16.h"
#include "numerics/parallel.h"
#include "numerics/row_sums.h"
#include "numerics/vector_clones.h"

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
inline void alu_loops(AluOp op, float* a, B b, size_t n) {
    switch (op) {
    case AluOp::bypass: return;
    case AluOp::add: return each(a, b, n, [](float x, float y) { return x + y; });
    case AluOp::subtract: return each(a, b, n, [](float x, float y) { return x - y; });
    case AluOp::rsubtract: return each(a, b, n, [](float x, float y) { return y - x; });
    case AluOp::mult: return each(a, b, n, [](float x, float y) { return x * y; });
    case AluOp::max: return each(a, b, n, [](float x, float y) { return x > y ? x : y; });
    case AluOp::is_gt: return each(a, b, n, [](float x, float y) { return x > y ? 1.0f : 0.0f; });
    default: throw std::logic_error(std::string("numerics: the ALU op ") + alu_name(op) + " is not modelled");
    }
}

// The element loops compiled for AVX2 too (numerics/vector_clones.h: the same bits).
BNSIM_VECTOR_CLONES void alu(AluOp op, float* a, const float* b, size_t n) { alu_loops(op, a, b, n); }
BNSIM_VECTOR_CLONES void alu(AluOp op, float* a, float b, size_t n) { alu_loops(op, a, b, n); }

inline void act(ActFunc f, float* v, size_t n) {
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
    default: throw std::logic_error(std::string("numerics: the activation function ") + act_func_name(f) + " is not modelled");
    }
}

// v = v * s + b (two roundings, as ACT's affine stage), then the function.
BNSIM_VECTOR_CLONES void scale_bias_act(ActFunc f, float s, float b, float* v, size_t n) {
    for (size_t j = 0; j < n; ++j) {
        float t = v[j] * s;
        v[j] = t + b;
    }
    act(f, v, n);
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

FunctionalExecutor::FunctionalExecutor(DeviceMemory& mem, ExecutorOptions opts)
    : mem_(mem), opts_(opts), share_(opts.threads > 0 ? opts.threads - 1 : default_threads() - 1) {
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

namespace {

// Where an instruction's results go, row by row: straight into device memory, or into staging
// buffers (one per destination) when they must wait for the instruction's on_finish.
class Results {
public:
    using Staged = std::vector<std::vector<uint8_t>>;
    Results(DeviceMemory& mem, const Instruction& ins, Staged* staged) : mem_(mem), ins_(ins), staged_(staged) {}
    uint8_t* row(size_t dst, uint32_t i) {
        const Region& r = ins_.dsts[dst].region;
        if (!staged_) return mem_.row(r, i);
        return (*staged_)[dst].data() + size_t(i) * size_t(r.bytes_per_row());
    }
    // Row i of dst from fp32 values, cast to its dtype.
    void store(size_t dst, uint32_t i, const float* v) {
        const Operand& o = ins_.dsts[dst];
        store_elems(v, o.dtype, size_t(o.elems_per_row()), row(dst, i));
    }

private:
    DeviceMemory& mem_;
    const Instruction& ins_;
    Staged* staged_;
};

}  // namespace

// Results go straight into device memory row by row when each destination row overlaps at most
// the same partition (or HBM row) of what the instruction reads, which is read whole before
// that row is written.
bool stages_own_results(const Instruction& ins) {
    bool stage = false;
    for (const Operand& d : ins.dsts)
        ins.for_each_read([&](const Region& r) {
            if (d.region.overlaps(r) && d.region.row_lo != r.row_lo) stage = true;
        });
    return stage;
}

bool writes_what_it_reads(const Instruction& writer, const Instruction& reader) {
    bool hit = false;
    reader.for_each_read([&](const Region& r) {
        if (!hit) writer.for_each_write([&](const Region& w) { hit = hit || r.overlaps(w); });
    });
    // A readout also reads the reduce registers beyond the instruction's own partitions.
    if (!hit && reader.acc_readout && writer.accumulate != Accumulate::none && reader.core == writer.core) hit = true;
    return hit;
}

namespace {

// Per-thread row buffers (one row of an operand as fp32 stays in cache).
std::vector<float>& row_buffer(int k) {
    thread_local std::vector<float> bufs[2];
    return bufs[k];
}

// Below this many bytes an instruction's rows are not worth sharing with a helper thread.
constexpr uint64_t kShareBytes = 64 * 1024;

// Rows handled together where a row's result is a sum along it (add_rows_in_order).
constexpr uint32_t kRowGroup = 8;
uint32_t groups_of(uint32_t rows) { return (rows + kRowGroup - 1) / kRowGroup; }

// The calling thread's buffer for a group of rows as fp32.
std::vector<float>& group_buffer(size_t n) {
    thread_local std::vector<float> buf;
    buf.resize(n);
    return buf;
}

}  // namespace

void FunctionalExecutor::each_row(const Instruction& ins, uint32_t rows, const std::function<void(uint32_t)>& f) {
    uint64_t bytes = 0;
    for (const Operand& o : ins.srcs) bytes += o.region.bytes();
    for (const Operand& o : ins.dsts) bytes += o.region.bytes();
    if (bytes < kShareBytes) {
        for (uint32_t i = 0; i < rows; ++i) f(i);
        return;
    }
    share_.run(rows, [&](size_t i) { f(uint32_t(i)); });
}

void FunctionalExecutor::compute(const Instruction& ins, Pending& p, bool stage) {
    auto need = [&](size_t ns, size_t nd) {
        if (ins.srcs.size() < ns || ins.dsts.size() < nd) shape_error(ins, "missing operands");
    };
    const DeviceMemory& mem = mem_;  // reads go through the const row(): inputs may be lent read-only
    // Row i of op as fp32 into the calling thread's buffer k.
    auto load_row = [&](const Operand& op, uint32_t i, int k) -> std::vector<float>& {
        std::vector<float>& out = row_buffer(k);
        const size_t n = size_t(op.elems_per_row());
        out.resize(n);
        load_elems(mem.row(op.region, i), op.dtype, n, out.data());
        return out;
    };
    Results::Staged staged;
    if (stage) {
        staged.resize(ins.dsts.size());
        for (size_t k = 0; k < ins.dsts.size(); ++k) staged[k] = take_bytes(size_t(ins.dsts[k].region.bytes()));
    }
    Results out(mem_, ins, stage ? &staged : nullptr);
    // Copies src into dsts[0] (casting when the dtypes differ).
    auto copy = [&](const Operand& src) {
        const Operand& dst = ins.dsts[0];
        const size_t bpr = size_t(dst.region.bytes_per_row());
        each_row(ins, dst.region.rows(), [&](uint32_t i) {
            if (src.dtype == dst.dtype) {
                std::memmove(out.row(0, i), mem.row(src.region, i), bpr);
            } else {
                out.store(0, i, load_row(src, i, 0).data());
            }
        });
    };
    switch (ins.opcode) {
    case Opcode::DmaCopy:
    case Opcode::NcStreamShuffle:
    case Opcode::TensorCopy: {
        need(1, 1);
        check_same(ins, ins.srcs[0], ins.dsts[0], "copy");
        copy(ins.srcs[0]);
        break;
    }
    case Opcode::SendRecv: {
        // srcs = [own send column, the peer's send column]: the receive buffer gets the peer's.
        need(2, 1);
        check_same(ins, ins.srcs[1], ins.dsts[0], "sendrecv");
        copy(ins.srcs[1]);
        break;
    }
    case Opcode::Activation: {
        need(1, 1);
        const Operand& in = ins.srcs[0];
        check_same(ins, in, ins.dsts[0], "activation");
        const uint32_t rows = in.region.rows();
        const size_t n = size_t(in.elems_per_row());
        const std::vector<float> sc = scalar(ins.scalar[0], rows, true);
        const std::vector<float> bi = scalar(ins.scalar[1], rows, true);
        const bool acc = ins.accumulate != Accumulate::none;
        const std::vector<float>& regs = acc_.at(ins.core);
        if (acc) {
            if (rows > regs.size()) shape_error(ins, "more partitions than reduce registers");
            p.writes_acc = true;
            p.acc.resize(rows);
        }
        if (ins.acc_readout) {
            if (ins.dsts.size() < 2) shape_error(ins, "acc_readout without a readout destination");
            const Operand& ro = ins.dsts[1];
            if (ro.elems_per_row() != 1 || ro.region.rows() > 128) shape_error(ins, "readout is not a [P, 1] column");
        }
        // Rows in groups, so that the reduce registers' sums of a group's rows run side by side.
        each_row(ins, groups_of(rows), [&](uint32_t g) {
            const uint32_t i0 = g * kRowGroup, m = std::min(kRowGroup, rows - i0);
            std::vector<float>& buf = group_buffer(size_t(m) * n);
            for (uint32_t k = 0; k < m; ++k) {
                float* r = buf.data() + k * n;
                load_elems(mem.row(in.region, i0 + k), in.dtype, n, r);
                scale_bias_act(ins.act_func, sc[i0 + k], bi[i0 + k], r, n);
            }
            if (acc) {
                float a[kRowGroup];
                for (uint32_t k = 0; k < m; ++k) a[k] = ins.accumulate == Accumulate::accumulate ? regs[i0 + k] : 0.0f;
                add_rows_in_order(buf.data(), n, m, n, a);
                for (uint32_t k = 0; k < m; ++k) p.acc[i0 + k] = a[k];
            }
            for (uint32_t k = 0; k < m; ++k) out.store(0, i0 + k, buf.data() + k * n);
        });
        if (ins.acc_readout) {
            const Operand& ro = ins.dsts[1];
            for (uint32_t i = 0; i < ro.region.rows(); ++i) {
                const float v = (acc && i < rows) ? p.acc[i] : regs[i];
                out.store(1, i, &v);
            }
        }
        break;
    }
    case Opcode::TensorTensor: {
        need(2, 1);
        check_same(ins, ins.srcs[0], ins.dsts[0], "tensor_tensor in0");
        check_same(ins, ins.srcs[1], ins.dsts[0], "tensor_tensor in1");
        each_row(ins, ins.dsts[0].region.rows(), [&](uint32_t i) {
            std::vector<float>& a = load_row(ins.srcs[0], i, 0);
            alu(ins.alu[0], a.data(), load_row(ins.srcs[1], i, 1).data(), a.size());
            out.store(0, i, a.data());
        });
        break;
    }
    case Opcode::TensorScalar: {
        need(1, 1);
        check_same(ins, ins.srcs[0], ins.dsts[0], "tensor_scalar");
        const uint32_t rows = ins.srcs[0].region.rows();
        const std::vector<float> s0 = scalar(ins.scalar[0], rows, false);
        const std::vector<float> s1 = scalar(ins.scalar[1], rows, false);
        each_row(ins, rows, [&](uint32_t i) {
            std::vector<float>& a = load_row(ins.srcs[0], i, 0);
            alu(ins.alu[0], a.data(), s0[i], a.size());
            alu(ins.alu[1], a.data(), s1[i], a.size());
            out.store(0, i, a.data());
        });
        break;
    }
    case Opcode::ScalarTensorTensor: {
        need(2, 1);
        check_same(ins, ins.srcs[0], ins.dsts[0], "scalar_tensor_tensor in0");
        check_same(ins, ins.srcs[1], ins.dsts[0], "scalar_tensor_tensor in1");
        const uint32_t rows = ins.srcs[0].region.rows();
        const std::vector<float> s = scalar(ins.scalar[0], rows, false);
        each_row(ins, rows, [&](uint32_t i) {
            std::vector<float>& a = load_row(ins.srcs[0], i, 0);
            alu(ins.alu[0], a.data(), s[i], a.size());
            alu(ins.alu[1], a.data(), load_row(ins.srcs[1], i, 1).data(), a.size());
            out.store(0, i, a.data());
        });
        break;
    }
    case Opcode::TensorReduce: {
        need(1, 1);
        const Operand& in = ins.srcs[0];
        const Operand& dst = ins.dsts[0];
        if (dst.region.rows() != in.region.rows() || dst.elems_per_row() != 1)
            shape_error(ins, "tensor_reduce output is not a [P, 1] column of its input");
        const uint32_t rows = in.region.rows();
        const size_t n = size_t(in.elems_per_row());
        if (ins.alu[0] == AluOp::max) {
            each_row(ins, rows, [&](uint32_t i) {
                const float* x = load_row(in, i, 0).data();
                float s = -INFINITY;
                for (size_t j = 0; j < n; ++j) s = x[j] > s ? x[j] : s;
                out.store(0, i, &s);
            });
            break;
        }
        // Sums: a group's rows side by side, each still added in element order.
        each_row(ins, groups_of(rows), [&](uint32_t g) {
            const uint32_t i0 = g * kRowGroup, m = std::min(kRowGroup, rows - i0);
            std::vector<float>& buf = group_buffer(size_t(m) * n);
            for (uint32_t k = 0; k < m; ++k) load_elems(mem.row(in.region, i0 + k), in.dtype, n, buf.data() + k * n);
            float s[kRowGroup] = {};
            add_rows_in_order(buf.data(), n, m, n, s);
            for (uint32_t k = 0; k < m; ++k) out.store(0, i0 + k, &s[k]);
        });
        break;
    }
    default:
        throw std::logic_error(std::string("numerics: ") + opcode_name(ins.opcode) + " is not modelled (timing and hazards only)");
    }
    if (!stage) return;
    p.staged = true;
    p.writes.resize(ins.dsts.size());
    for (size_t k = 0; k < ins.dsts.size(); ++k) {
        p.writes[k].region = ins.dsts[k].region;
        p.writes[k].bytes = std::move(staged[k]);
    }
}

void FunctionalExecutor::stage_readers_of(const Instruction& writer) {
    for (auto& [id, p] : pending_)
        if (!p.staged && id != writer.id && writes_what_it_reads(writer, *p.ins)) compute(*p.ins, p, true);
}

void FunctionalExecutor::on_start(const Instruction& ins, double) {
    mem_.acquire(ins);
    ++started_;
    Pending& p = pending_[ins.id];
    p = Pending();
    p.ins = &ins;
    // Results that could overwrite the instruction's own inputs before it has read them all are
    // computed now and staged.
    if (stages_own_results(ins)) compute(ins, p, true);
}

void FunctionalExecutor::on_finish(const Instruction& ins, double) {
    auto it = pending_.find(ins.id);
    if (it == pending_.end())
        throw std::logic_error("numerics: instruction " + std::to_string(ins.id) + " finished without starting");
    // Instructions in flight that read what this one writes see their inputs as they were.
    stage_readers_of(ins);
    Pending& p = it->second;
    if (p.staged) {
        for (const Write& w : p.writes) {
            const size_t bpr = size_t(w.region.bytes_per_row());
            for (uint32_t i = 0; i < w.region.rows(); ++i)
                std::memcpy(mem_.row(w.region, i), w.bytes.data() + i * bpr, bpr);
        }
        for (Write& w : p.writes) byte_pool_.push_back(std::move(w.bytes));
    } else {
        compute(ins, p, false);
    }
    if (p.writes_acc) {
        auto& regs = acc_.at(ins.core);
        for (size_t i = 0; i < p.acc.size(); ++i) regs[i] = p.acc[i];
    }
    pending_.erase(it);
    mem_.release(ins);
    ++finished_;
}

}  // namespace bnsim::num
