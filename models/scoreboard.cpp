#include "models/scoreboard.h"

#include <stdexcept>

namespace bnsim {

Scoreboard::Scoreboard(const Trace& trace, const Dependents& dependents, ExecutionObserverIF* observer)
    : trace_(trace), observer_(observer), dependents_(dependents) {
    const size_t n = trace.size();
    pending_.resize(n);
    for (uint32_t id = 0; id < n; ++id) pending_[id] = dependents.dep_count(id);
    dep_waiter_.assign(n, nullptr);
    finish_waiter_.assign(n, nullptr);
    rec_.assign(n, ExecRecord{});
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
    for (const uint32_t* it = dependents_.begin(id); it != dependents_.end(id); ++it) {
        const uint32_t d = *it;
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
