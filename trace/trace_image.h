#pragma once
// A trace in binary form with its dependencies: what the trace cache (kernels/trace_cache.h)
// keeps of a kernel an outside program traced, so a later command takes it without parsing the
// text trace again or deriving its edges (W2's 12,510 instructions: 0.29 s of JSON and 0.11 s of
// derivation, against some 10 ms for the image).
//
// Not an interchange format: only the bnsim binary that wrote an image reads it (the cache's key
// names the binary), and the text trace (docs/trace-format.md) stays the format for people and
// other tools. An image still guards itself: a magic, a format version and a checksum over the
// rest, every count checked against the bytes left before anything is allocated, every enum and
// reference checked; anything else reads as no image.
#include <optional>
#include <string>
#include <string_view>

#include "trace/trace_reader.h"

namespace bnsim {

// The image of `tf` (its trace's dependencies as they are: derive them first).
std::string trace_image(const TraceFile& tf);

// The trace file an image holds, dependencies included; nullopt for anything that is not a whole,
// intact image of this format.
std::optional<TraceFile> read_trace_image(std::string_view bytes);

}  // namespace bnsim
