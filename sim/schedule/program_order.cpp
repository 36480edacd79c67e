#include "sim/schedule/schedule.h"

namespace bnsim {

Schedule schedule_program_order(const Trace& trace) {
    Schedule s;
    s.cores.resize(size_t(trace.num_cores));
    for (const auto& in : trace.instructions()) s.cores[in.core][size_t(in.engine)].push_back(in.id);
    return s;
}

Schedule make_schedule(const Trace& trace, const Dependents& dependents, const CostModel& cost, SchedulePolicy policy) {
    return policy == SchedulePolicy::program_order ? schedule_program_order(trace)
                                                   : schedule_list(trace, dependents, cost, ScheduleDetail::streams);
}

const char* schedule_policy_name(SchedulePolicy p) {
    return p == SchedulePolicy::program_order ? "program_order" : "list";
}

}  // namespace bnsim
