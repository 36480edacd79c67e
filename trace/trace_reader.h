#pragma once
// Reading a trace file (docs/trace-format.md) without trusting it: what `bnsim trace --dump`
// writes and what the NKI frontend records. Every field is checked (names, ranges, operand
// counts per opcode, regions inside their tensors) before an instruction is kept, and a problem
// is one line naming the file, its line and the key. Dependencies are not read: the simulator
// derives them from the regions, as it does for its own generators.
#include <cstdint>
#include <istream>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "trace/trace.h"

namespace bnsim {

struct TraceFileError : std::runtime_error {
    explicit TraceFileError(const std::string& m) : std::runtime_error(m) {}
};

// Limits a trace file must keep before anything it claims is allocated.
constexpr uint64_t kMaxTraceFileBytes = uint64_t(4) << 30;
constexpr uint64_t kMaxTraceInstructions = uint64_t(1) << 26;
constexpr uint64_t kMaxTraceTensors = 1u << 16;
constexpr uint64_t kMaxTraceLineBytes = uint64_t(1) << 20;

struct TraceFile {
    Trace trace;
    // The header's optional "info" object (what the producer says about its choices), for the
    // trace report; never read by key outside the producer's own entry.
    nlohmann::ordered_json info = nlohmann::ordered_json::object();
};

// Reads `path` (a regular file; a FIFO, directory or device is refused without blocking).
TraceFile read_trace_file(const std::string& path);
// Reads from a stream; `name` is the file name used in errors.
TraceFile read_trace_stream(std::istream& in, const std::string& name);

}  // namespace bnsim
