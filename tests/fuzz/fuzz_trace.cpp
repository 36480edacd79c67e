// libFuzzer target: the trace file reader (kernel: trace, and the NKI frontend's output) on
// arbitrary bytes, then the dependency pass on whatever it accepts. Bad input must end in a
// TraceFileError (exit 2 in bnsim); any other exception, a crash, a sanitizer report, a hang or
// an allocation of what a header claims is a finding.
#include <sstream>

#include "trace/trace_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    try {
        bnsim::TraceFile f = bnsim::read_trace_stream(in, "fuzz.jsonl");
        bnsim::derive_dependencies(f.trace);
    } catch (const bnsim::TraceFileError&) {
    }
    return 0;
}
