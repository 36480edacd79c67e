#include "numerics/execution_order.h"

#include <stdexcept>

namespace bnsim::num {
namespace {

class Recorder : public ExecutionObserverIF {
public:
    explicit Recorder(ExecutionOrder& out) : out_(out) {}
    void on_start(const Instruction& ins, double t) override { out_.push_back({ins.id, true, t}); }
    void on_finish(const Instruction& ins, double t) override { out_.push_back({ins.id, false, t}); }

private:
    ExecutionOrder& out_;
};

}  // namespace

ExecutionOrder record_order(const Trace& trace, const Runner& run) {
    ExecutionOrder order;
    order.reserve(trace.instructions().size() * 2);
    Recorder rec(order);
    run(trace, rec);
    return order;
}

Runner replay(const ExecutionOrder& order) {
    return [&order](const Trace& trace, ExecutionObserverIF& obs) {
        const auto& ins = trace.instructions();
        for (const ExecutionEvent& e : order) {
            if (e.id >= ins.size()) throw std::logic_error("numerics: a recorded order does not fit the trace");
            if (e.start) obs.on_start(ins[e.id], e.t_ns);
            else obs.on_finish(ins[e.id], e.t_ns);
        }
    };
}

}  // namespace bnsim::num
