#pragma once
// How the scheduling pass orders each engine's stream (run config `schedule:`).
namespace bnsim {

enum class SchedulePolicy { list, program_order };

}  // namespace bnsim
