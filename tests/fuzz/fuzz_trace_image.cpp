// libFuzzer target: the trace image reader (trace/trace_image.h: the binary traces the trace
// cache keeps) on arbitrary bytes. The image's checksum would turn away nearly every mutation, so
// the target seals the fuzzer's bytes as an image body (magic, version, the body's checksum) and
// the reader's every count, enum and reference check is what meets them. A reader that is not
// sure must answer "no image": a crash, a sanitizer report, a hang, an exception or an allocation
// of what a count claims is a finding. What it accepts must be a trace that reads back as itself.
#include <cstring>
#include <string>

#include "trace/dependents.h"
#include "trace/fnv1a64.h"
#include "trace/trace_image.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string body(reinterpret_cast<const char*>(data), size);
    std::string image("bnsimTI", 8);  // the magic with its terminating zero
    const uint32_t version = 1;
    const uint64_t sum = bnsim::fnv1a64(body);
    image.append(reinterpret_cast<const char*>(&version), sizeof version);
    image.append(reinterpret_cast<const char*>(&sum), sizeof sum);
    image += body;
    if (auto tf = bnsim::read_trace_image(image)) {
        // Every edge points back within its trace: the dependents of an accepted image are
        // well formed (Dependents throws std::logic_error on an edge across cores).
        try {
            bnsim::Dependents d(tf->trace);
        } catch (const std::logic_error&) {
        }
        // And what it wrote is read back as the same trace: written again, the same bytes.
        const std::string again = bnsim::trace_image(*tf);
        const auto back = bnsim::read_trace_image(again);
        if (!back || bnsim::trace_image(*back) != again) __builtin_trap();
    }
    return 0;
}
