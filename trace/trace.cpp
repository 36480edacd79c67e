#include "trace/trace.h"

#include <atomic>
#include <limits>

#include <algorithm>
#include <stdexcept>

namespace bnsim {

uint32_t Trace::add_tensor(HbmTensor t, uint64_t align) {
    t.id = uint32_t(tensors_.size());
    next_addr_ = (next_addr_ + align - 1) / align * align;
    t.base_addr = next_addr_;
    next_addr_ += t.bytes();
    tensors_.push_back(std::move(t));
    return tensors_.back().id;
}

uint32_t Trace::add_placed_tensor(HbmTensor t) {
    t.id = uint32_t(tensors_.size());
    next_addr_ = std::max(next_addr_, t.base_addr + t.bytes());
    tensors_.push_back(std::move(t));
    return tensors_.back().id;
}

const HbmTensor* Trace::find_tensor(const std::string& name, int owner_core) const {
    for (const auto& t : tensors_)
        if (t.name == name && t.owner_core == owner_core) return &t;
    return nullptr;
}

namespace {
std::atomic<size_t> g_trace_limit{std::numeric_limits<uint32_t>::max()};  // ids are 32-bit
}  // namespace

void set_trace_limit(size_t n) { g_trace_limit = std::min<size_t>(n, std::numeric_limits<uint32_t>::max()); }
size_t trace_limit() { return g_trace_limit; }

void Trace::reserve(size_t n) {
    // A generator's bound is checked before a single instruction is made: a trace the limit
    // refuses is refused at once, not after minutes of generating.
    if (n > trace_limit())
        throw TraceTooLarge("the trace would have up to " + std::to_string(n) + " instructions, more than the " +
                            std::to_string(trace_limit()) + " allowed");
    instrs_.reserve(n);
}

Instruction& Trace::append(Instruction&& ins) {
    if (instrs_.size() >= trace_limit())
        throw TraceTooLarge("the trace passed the " + std::to_string(trace_limit()) + " instructions allowed");
    ins.id = uint32_t(instrs_.size());
    if (ins.core >= num_cores) throw std::logic_error("instruction on a core the trace does not have");
    instrs_.push_back(std::move(ins));
    return instrs_.back();
}

Region Trace::hbm(uint32_t tensor, uint64_t r0, uint64_t r1, uint64_t b0, uint64_t b1) const {
    const HbmTensor& t = tensors_.at(tensor);
    if (r1 > t.rows || b1 > t.row_bytes || r0 >= r1 || b0 >= b1)
        throw std::logic_error("HBM region outside tensor " + t.name);
    Region r;
    r.space = Space::Hbm;
    r.buffer = tensor;
    r.row_lo = uint32_t(r0);
    r.row_hi = uint32_t(r1);
    r.byte_lo = b0;
    r.byte_hi = b1;
    return r;
}

TraceStats compute_stats(const Trace& trace) {
    TraceStats s;
    for (const auto& in : trace.instructions()) {
        ++s.total;
        ++s.by_engine[int(in.engine)];
        ++s.by_opcode[int(in.opcode)];
        s.dependency_edges += in.deps.size();
        if (in.is_dma()) {
            ++s.dma;
            ++s.dma_by_dge[int(in.dma.dge)];
        }
        for (const auto& o : in.srcs)
            if (o.region.space == Space::Hbm) s.hbm_read_bytes += o.region.bytes();
        for (const auto& o : in.dsts)
            if (o.region.space == Space::Hbm) s.hbm_write_bytes += o.region.bytes();
    }
    return s;
}

const char* Trace::keep_string(const std::string& s) {
    if (!strings_) strings_ = std::make_shared<std::deque<std::string>>();
    strings_->push_back(s);
    return strings_->back().c_str();
}

}  // namespace bnsim
