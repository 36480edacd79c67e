#include "numerics/runners.h"

#include <map>
#include <queue>
#include <stdexcept>
#include <string>
#include <tuple>

namespace bnsim::num {

std::vector<int64_t> match_sendrecvs(const Trace& trace) {
    const auto& ins = trace.instructions();
    std::vector<int64_t> match(ins.size(), -1);
    // (core, peer, pipe) -> ids in program order
    std::map<std::tuple<int, int, int>, std::vector<uint32_t>> seq;
    for (const auto& in : ins)
        if (in.opcode == Opcode::SendRecv) seq[{in.core, in.peer_core, in.pipe}].push_back(in.id);
    for (const auto& [key, ids] : seq) {
        auto other = seq.find({std::get<1>(key), std::get<0>(key), std::get<2>(key)});
        if (other == seq.end()) continue;
        for (size_t k = 0; k < ids.size() && k < other->second.size(); ++k) match[ids[k]] = other->second[k];
    }
    return match;
}

void run_sequential(const Trace& trace, ExecutionObserverIF& obs) {
    const auto& ins = trace.instructions();
    const auto match = match_sendrecvs(trace);
    const int nc = std::max(trace.num_cores, 1);
    std::vector<std::vector<uint32_t>> prog(static_cast<size_t>(nc));
    for (const auto& in : ins) prog[in.core].push_back(in.id);
    std::vector<size_t> pc(size_t(nc), 0);
    double t = 0;
    auto run_one = [&](const Instruction& in) {
        obs.on_start(in, t);
        obs.on_finish(in, t + 1);
        t += 2;
    };
    for (;;) {
        bool progress = false, done = true;
        for (int c = 0; c < nc; ++c) {
            while (pc[c] < prog[c].size()) {
                const Instruction& in = ins[prog[c][pc[c]]];
                if (in.opcode == Opcode::SendRecv) break;
                run_one(in);
                ++pc[c];
                progress = true;
            }
        }
        // Every core is at a sendrecv or done: run the matched pairs.
        for (int c = 0; c < nc; ++c) {
            if (pc[c] >= prog[c].size()) continue;
            done = false;
            const Instruction& a = ins[prog[c][pc[c]]];
            if (a.opcode != Opcode::SendRecv) continue;  // its peer pair ran just now
            const int64_t m = match[a.id];
            if (m < 0) throw std::runtime_error("numerics: sendrecv " + std::to_string(a.id) + " has no matching peer");
            const Instruction& b = ins[size_t(m)];
            if (pc[b.core] < prog[b.core].size() && prog[b.core][pc[b.core]] == b.id) {
                obs.on_start(a, t);
                obs.on_start(b, t);
                obs.on_finish(a, t + 1);
                obs.on_finish(b, t + 1);
                t += 2;
                ++pc[a.core];
                ++pc[b.core];
                progress = true;
            }
        }
        if (done) return;
        if (!progress) throw std::runtime_error("numerics: sequential run deadlocked on sendrecv");
    }
}

void run_dataflow(const Trace& trace, ExecutionObserverIF& obs) {
    const auto& ins = trace.instructions();
    const size_t n = ins.size();
    const auto match = match_sendrecvs(trace);
    std::vector<std::vector<uint32_t>> users(n);
    std::vector<uint32_t> remaining(n, 0);
    for (const auto& in : ins) {
        remaining[in.id] = uint32_t(in.deps.size());
        for (uint32_t d : in.deps) users.at(d).push_back(in.id);
    }
    auto duration = [&](const Instruction& in) {
        uint64_t bytes = 0;
        for (const auto& o : in.srcs) bytes += o.region.bytes();
        for (const auto& o : in.dsts) bytes += o.region.bytes();
        return 10.0 + double(bytes) / 256.0;
    };
    // Events: (time, kind 0 = finish first, 1 = start, id)
    using Ev = std::tuple<double, int, uint32_t>;
    std::priority_queue<Ev, std::vector<Ev>, std::greater<Ev>> q;
    std::vector<char> ready(n, 0), started(n, 0);
    std::vector<double> ready_at(n, 0);
    auto make_ready = [&](uint32_t id, double t) {
        ready[id] = 1;
        ready_at[id] = t;
        const int64_t m = match[id];
        if (ins[id].opcode == Opcode::SendRecv && m >= 0) {
            if (!ready[size_t(m)]) return;  // rendezvous: wait for the peer
            const double ts = std::max(t, ready_at[size_t(m)]);
            q.emplace(ts, 1, id);
            q.emplace(ts, 1, uint32_t(m));
            return;
        }
        q.emplace(t, 1, id);
    };
    for (uint32_t i = 0; i < n; ++i)
        if (remaining[i] == 0) make_ready(i, 0.0);
    size_t finished = 0;
    while (!q.empty()) {
        auto [t, kind, id] = q.top();
        q.pop();
        const Instruction& in = ins[id];
        if (kind == 1) {
            if (started[id]) continue;
            started[id] = 1;
            obs.on_start(in, t);
            q.emplace(t + duration(in), 0, id);
        } else {
            obs.on_finish(in, t);
            ++finished;
            for (uint32_t u : users[id])
                if (--remaining[u] == 0) make_ready(u, t);
        }
    }
    if (finished != n)
        throw std::runtime_error("numerics: dataflow run finished " + std::to_string(finished) + " of " +
                                 std::to_string(n) + " instructions (a dependency cycle or unmatched sendrecv)");
}

}  // namespace bnsim::num
