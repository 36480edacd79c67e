#include "models/scoreboard.h"

#include <stdexcept>

namespace bnsim {

Scoreboard::Scoreboard(const Trace& trace, ExecutionObserverIF* observer)
    : trace_(trace), observer_(observer) {
    const auto& ins = trace.instructions();
    const size_t n = ins.size();
    pending_.assign(n, 0);
    dep_waiter_.assign(n, nullptr);
    finish_waiter_.assign(n, nullptr);
    rec_.assign(n, ExecRecord{});
    dep_off_.assign(n + 1, 0);
    for (const auto& in : ins)
        for (uint32_t d : in.deps) {
            if (d >= n) throw std::logic_error("instruction " + std::to_string(in.id) + " depends on unknown id");
            ++dep_off_[d + 1];
        }
    for (size_t i = 0; i < n; ++i) dep_off_[i + 1] += dep_off_[i];
    dependents_.assign(dep_off_[n], 0);
    std::vector<uint32_t> fill(dep_off_.begin(), dep_off_.end() - 1);
    for (const auto& in : ins) {
        pending_[in.id] = uint32_t(in.deps.size());
        for (uint32_t d : in.deps) dependents_[fill[d]++] = in.id;
    }
}

void Scoreboard::wait_deps(uint32_t id, WakeIF* w) {
    if (pending_[id] == 0)
        w->wake();
    else
        dep_waiter_[id] = w;
}

void Scoreboard::wait_finish(uint32_t id, WakeIF* w) {
    if (rec_[id].finished())
        w->wake();
    else
        finish_waiter_[id] = w;
}

void Scoreboard::start(uint32_t id, double t_ns) {
    rec_[id].start_ns = t_ns;
    if (observer_) observer_->on_start(trace_.instructions()[id], t_ns);
}

void Scoreboard::finish(uint32_t id, double t_ns) {
    ExecRecord& r = rec_[id];
    if (r.finished()) throw std::logic_error("instruction " + std::to_string(id) + " finished twice");
    r.end_ns = t_ns;
    ++finished_;
    if (observer_) observer_->on_finish(trace_.instructions()[id], t_ns);
    for (uint32_t k = dep_off_[id]; k < dep_off_[id + 1]; ++k) {
        const uint32_t d = dependents_[k];
        if (--pending_[d] == 0) {
            rec_[d].deps_met_ns = t_ns;
            rec_[d].last_dep = id;
            if (WakeIF* w = dep_waiter_[d]) {
                dep_waiter_[d] = nullptr;
                w->wake();
            }
        }
    }
    if (WakeIF* w = finish_waiter_[id]) {
        finish_waiter_[id] = nullptr;
        w->wake();
    }
}

}  // namespace bnsim
