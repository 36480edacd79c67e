#pragma once
// Moving values in and out of a trace's HBM tensors by name, converting to and from the
// tensor's dtype.
#include <string>
#include <vector>

#include "numerics/device_memory.h"
#include "trace/trace.h"

namespace bnsim::num {

// Stores n fp32 values into the named tensor (no-op when the trace has no such tensor).
void put_tensor(DeviceMemory& mem, const Trace& t, const char* name, const float* data, size_t n);
// The named tensor's values as fp32 (logic_error when the trace has no such tensor).
std::vector<float> get_tensor(const DeviceMemory& mem, const Trace& t, const char* name);

}  // namespace bnsim::num
