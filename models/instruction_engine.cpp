#include "models/instruction_engine.h"

#include <algorithm>
#include <stdexcept>

#include "models/action_queue.h"

namespace bnsim {

InstructionEngine::InstructionEngine(sc_core::sc_module_name name, Engine kind, uint8_t core,
                                     std::vector<uint32_t> stream, const CostModel& cost, const Trace& trace,
                                     Scoreboard& sb, Sbuf& sbuf, DmaController& dma, Link* link)
    : sc_core::sc_module(name), kind_(kind), core_(core), stream_(std::move(stream)), cost_(cost), trace_(trace),
      sb_(sb), sbuf_(sbuf), dma_(dma), link_(link) {
    SC_METHOD(step);
    sensitive << ev_;
    // Runs once at time 0 to start the stream.
}

void InstructionEngine::complete(double t) {
    const uint32_t id = stream_[pos_];
    switch (work_) {
    case Work::Compute:
        // Its consumers on this engine may issue now (CostModel::handoff_ns), the rest once the
        // result is written.
        sb_.finish(id, t + cost_.result_latency_ns(trace_.instructions()[id]));
        break;
    case Work::Trigger:
        dma_.trigger(id);
        break;
    case Work::Post:
        link_->post(id);
        state_ = State::WaitFinish;
        sb_.wait_finish(id, this);
        return;
    }
    ++executed_;
    ++pos_;
    state_ = State::Idle;
}

void InstructionEngine::step() {
    const double now = now_ns();
    switch (state_) {
    case State::Busy:
        if (now + kTimeEpsNs < busy_until_) {  // woken early: keep the end-of-instruction wake-up
            ev_.notify(sc_core::sc_time(busy_until_ - now, sc_core::SC_NS));
            return;
        }
        complete(now);
        if (state_ != State::Idle) return;
        break;
    case State::WaitFinish:
        if (!sb_.record(stream_[pos_]).finished()) return;
        ++executed_;
        ++pos_;
        state_ = State::Idle;
        break;
    case State::WaitDeps:
        if (!sb_.deps_met(stream_[pos_])) return;
        state_ = State::Idle;
        break;
    case State::WaitSemaphore:
        if (now + kTimeEpsNs < semaphore_until_) {  // woken early: keep the semaphore's wake-up
            ev_.notify(sc_core::sc_time(semaphore_until_ - now, sc_core::SC_NS));
            return;
        }
        state_ = State::Idle;
        break;
    case State::Idle:
        break;
    }
    if (pos_ >= stream_.size()) return;
    const uint32_t id = stream_[pos_];
    const Instruction& ins = trace_.instructions()[id];
    ExecRecord& r = sb_.record(id);
    if (r.head_ns < 0) {
        r.head_ns = now;
        // The engine meets each instruction of its stream once: fetch the next one's struct and
        // execution record while this one runs.
        if (pos_ + 1 < stream_.size()) {
            prefetch_instruction(trace_.instructions()[stream_[pos_ + 1]]);
            __builtin_prefetch(&sb_.record(stream_[pos_ + 1]));
        }
    }
    if (!sb_.deps_met(id)) {
        state_ = State::WaitDeps;
        sb_.wait_deps(id, this);
        return;
    }
    // A producer on another engine signals its semaphore some time after it finishes.
    double visible = now;
    for (uint32_t d : ins.deps)
        visible = std::max(visible, sb_.record(d).end_ns + cost_.handoff_ns(trace_.instructions()[d], ins));
    if (now + kTimeEpsNs < visible) {
        semaphore_until_ = visible;
        state_ = State::WaitSemaphore;
        ev_.notify(sc_core::sc_time(visible - now, sc_core::SC_NS));
        return;
    }
    r.ready_ns = now;
    wait_ns_ += now - r.head_ns;
    const double dur = cost_.engine_ns(ins, cost_state_);
    switch (ins.opcode) {
    case Opcode::DmaCopy:
        work_ = Work::Trigger;
        break;
    case Opcode::SendRecv:
        if (!link_)
            throw std::runtime_error("sendrecv " + std::to_string(id) + " on a core without an inter-core link");
        work_ = Work::Post;
        break;
    default:
        work_ = Work::Compute;
        sb_.start(id, now);
        sbuf_.engine_access(ins);
        if (ins.opcode == Opcode::Activation) regs_.execute(ins);
        break;
    }
    // Busy as a profiler counts an engine active: each instruction from its start until its
    // result is written, overlapping spans (a pipelined result latency under the next
    // instruction) once.
    const double latency = work_ == Work::Compute ? cost_.result_latency_ns(ins) : 0.0;
    if (now + kTimeEpsNs >= active_until_)  // a span of its own (the time grid rounds ends to ps)
        busy_ns_ += dur + latency;
    else
        busy_ns_ += std::max(0.0, now + dur + latency - active_until_);
    active_until_ = std::max(active_until_, now + dur + latency);
    busy_until_ = now + dur;
    state_ = State::Busy;
    ev_.notify(sc_core::sc_time(dur, sc_core::SC_NS));
}

}  // namespace bnsim
