#include "models/link.h"

#include <algorithm>

namespace bnsim {

Link::Link(sc_core::sc_module_name name, const CostModel& cost, const Trace& trace, Scoreboard& sb)
    : sc_core::sc_module(name), cost_(cost), trace_(trace), sb_(sb) {
    SC_METHOD(tick);
    sensitive << ev_;
    dont_initialize();
}

void Link::post(uint32_t id) {
    const Instruction& ins = trace_.instructions()[id];
    auto peer_it = waiting_.find(Key{ins.peer_core, ins.core, ins.pipe});
    if (peer_it == waiting_.end() || peer_it->second.empty()) {
        waiting_[Key{ins.core, ins.peer_core, ins.pipe}].push_back(id);
        return;
    }
    const uint32_t other = peer_it->second.front();
    peer_it->second.pop_front();
    const Instruction& o = trace_.instructions()[other];
    const double now = now_ns();
    const double dur = std::max(cost_.sendrecv_ns(ins), cost_.sendrecv_ns(o));
    sb_.start(other, now);
    sb_.start(id, now);
    busy_ns_ += dur;
    ++transfers_;
    if (cost_.sendrecv_uses_gpsimd_path(ins)) ++gpsimd_transfers_;
    bytes_ += ins.srcs.empty() ? 0 : ins.srcs[0].region.bytes();
    bytes_ += o.srcs.empty() ? 0 : o.srcs[0].region.bytes();
    const double done = now + dur;
    actions_.at(done, [this, id, other] {
        sb_.finish(other, now_ns());
        sb_.finish(id, now_ns());
    });
}

std::vector<std::pair<uint32_t, std::string>> Link::unmatched() const {
    std::vector<std::pair<uint32_t, std::string>> out;
    for (const auto& [k, q] : waiting_)
        for (uint32_t id : q)
            out.emplace_back(id, "the matching sendrecv of core " + std::to_string(std::get<1>(k)) + " on pipe " +
                                     std::to_string(std::get<2>(k)));
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace bnsim
