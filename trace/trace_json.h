#pragma once
// JSON forms of trace records: one object per instruction (the --dump format, JSON lines).
#include <functional>
#include <iosfwd>

#include <nlohmann/json.hpp>

#include "trace/trace.h"

namespace bnsim {

// The trace file format (docs/trace-format.md): its name and version, in every file's header.
// A reader refuses another name and a version it does not know.
inline constexpr const char* kTraceFormat = "bnsim-trace";
inline constexpr int kTraceFormatVersion = 1;

nlohmann::ordered_json region_json(const Trace& trace, const Region& r);
nlohmann::ordered_json instruction_json(const Trace& trace, const Instruction& ins);
// Writes a header line describing the tensors (plus the caller's header_extra keys, e.g. the
// provenance), then one line per instruction. `annotate`, if given, adds fields to each
// instruction's object (e.g. the cost row it matched).
using InstructionAnnotator = std::function<void(const Instruction&, nlohmann::ordered_json&)>;
void write_trace_jsonl(const Trace& trace, std::ostream& out,
                       const nlohmann::ordered_json& header_extra = nlohmann::ordered_json::object(),
                       const InstructionAnnotator& annotate = {});

}  // namespace bnsim
