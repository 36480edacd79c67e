#pragma once
// Where a kernel that traces through an outside program (the NKI frontend, a Python process)
// keeps the traces it made, so that the child processes of one bnsim command trace each
// distinct kernel once: a fit evaluates every measured row at each of its parameter vectors, and
// the NKI rows' traces do not change with the hardware parameters it varies. The parent opens the
// folder before it forks (sim/runner/simulation_runner.cpp) and removes it when it exits; a
// process that never opens one traces every time.
#include <optional>
#include <string>

#include "kernels/kernel_target.h"

namespace bnsim {

// The folder children share, or "" when none is open. Setting it also sets the environment
// variable BNSIM_COMMAND_TRACES, from which a bnsim process the command starts (rather than
// forks) takes it.
const std::string& trace_cache_dir();
void set_trace_cache_dir(std::string dir);

// The cached trace file for `key` (any text that determines the trace), if this command made it
// before; else where to put a new one once it is complete (put_cached_trace).
std::optional<std::string> cached_trace(const std::string& key);
// Moves a finished trace file into the cache under `key` (atomically: readers see the whole file
// or none). Does nothing without a cache or when the move fails; the caller's file is then left.
void put_cached_trace(const std::string& key, const std::string& file);

// In memory: the kernels this process made from such traces, dependencies derived, by the same
// key. A process that forks after making one (sim/runner traces ahead of its children) hands
// it to every child: reading W2's 12,510-instruction trace file and deriving its 353k edges
// took ~0.2 s in each child, most of a fit evaluation. The few most recent are kept.
std::optional<GeneratedKernel> remembered_kernel(const std::string& key);
bool is_remembered(const std::string& key);
void remember_kernel(const std::string& key, const GeneratedKernel& k);

}  // namespace bnsim
