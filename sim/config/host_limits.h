#pragma once
// What this machine has: its memory, so bnsim refuses work that would not fit before starting
// it rather than growing until the allocator gives up (validate's memory plan, the trace limit
// of a run), and its cores, the one default of every --jobs.
#include <cstdint>
#include <string>

namespace bnsim {

// /proc/meminfo's MemAvailable, or 0 where it cannot be read (no limit is then applied).
uint64_t mem_available_bytes();

// Resident memory a run takes per trace instruction, an estimate with margin: 1 KiB. Measured
// 650 B (a 400,000-instruction calibration run: 276 MB peak RSS; docs/benchmarks.md).
constexpr uint64_t kRunBytesPerInstruction = 1024;

// What this run may allocate: MemAvailable, capped at half the address-space limit if one is set.
uint64_t usable_memory_bytes();

// The most instructions a trace may have here: usable_memory_bytes() / kRunBytesPerInstruction.
uint64_t simulable_instructions();

// The cores this process may run on (its affinity mask), at least 1.
int available_cores();

// "3.2 GiB".
std::string gib_text(uint64_t bytes);

}  // namespace bnsim
