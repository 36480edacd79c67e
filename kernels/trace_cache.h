#pragma once
// Where a kernel that traces through an outside program (the NKI frontend, a Python process)
// keeps the traces it made, so that a kernel is traced once, not once per command or per child
// process: a fit evaluates every measured row at each of its parameter vectors, `calibrate`
// runs W2 (1.1 s of Python, 12,510 instructions) every time, and none of those traces changes
// with the hardware parameters.
//
// On disk, across commands (as neuronx-cc keeps compiled kernels in its compile cache): the
// folder $BNSIM_TRACE_CACHE, else $XDG_CACHE_HOME/bnsim/traces, else ~/.cache/bnsim/traces.
// BNSIM_TRACE_CACHE=off keeps nothing across commands: the command's children then share a
// folder the parent opens (sim/runner/simulation_runner.cpp) and removes when it exits.
// An entry is the trace as an image with its dependencies derived (trace/trace_image.h), under
// its key (what the producer says the trace depends on) and the bnsim binary that wrote it,
// with the files it was made from (the kernel file and the modules it imported), each checked by
// its contents when the entry is taken: an edited kernel or helper module is traced again. An
// entry that is not intact reads as a miss; the folder keeps the 64 entries used most recently
// (at most 1 GiB).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kernels/kernel_target.h"
#include "trace/trace_reader.h"

namespace bnsim {

// The folder in use, or "" when none is. Setting it (the command's shared folder) also sets
// the environment variable BNSIM_COMMAND_TRACES, from which a bnsim process the command starts
// (rather than forks) takes it.
const std::string& trace_cache_dir();
void set_trace_cache_dir(std::string dir);

// The trace kept for `key`, dependencies derived, if its files are as they were when it was
// made; else nullopt.
std::optional<TraceFile> cached_trace(const std::string& key);
// Keeps `tf` (dependencies derived) under `key`, made from `files` (paths). Written whole or not
// at all (readers see the complete entry or none); a cache that cannot be written is skipped.
void put_cached_trace(const std::string& key, const TraceFile& tf, const std::vector<std::string>& files);

// FNV-1a of a file's contents: a regular file of at most 1 GiB, else nullopt. What an entry checks
// the files it was made from by.
std::optional<uint64_t> file_contents_hash(const std::string& path);

// In memory: the kernels this process made from such traces, dependencies derived, by the same
// key (and those RunConfig::shared_kernel made, by theirs). A process that forks after making
// one (sim/runner traces ahead of its children) hands it to every child. The most recent are
// kept (the budget below); each is handed out shared, not copied.
std::shared_ptr<const GeneratedKernel> remembered_kernel(const std::string& key);
bool is_remembered(const std::string& key);
void remember_kernel(const std::string& key, std::shared_ptr<const GeneratedKernel> k);
// What is kept: at most this many kernels, holding at most this many instructions in all (each
// 384 bytes with its operands, plus its reverse edges: W2's 12,510 are about 5 MB; a fit's
// hundred small calibration kernels a few thousand). The oldest go first.
constexpr size_t kRememberedKernels = 256;
constexpr size_t kRememberedInstructions = 400'000;
// Another budget (tests); trims what is kept to it.
void set_remembered_budget(size_t kernels, size_t instructions);

}  // namespace bnsim
