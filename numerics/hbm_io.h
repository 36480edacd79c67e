#pragma once
// Moving values in and out of a trace's HBM tensors by name, converting to and from the
// tensor's dtype.
#include <string>
#include <vector>

#include "numerics/device_memory.h"
#include "numerics/typed_array.h"
#include "trace/trace.h"

namespace bnsim::num {

// Stores n fp32 values into the named tensor (no-op when the trace has no such tensor).
void put_tensor(DeviceMemory& mem, const Trace& t, const char* name, const float* data, size_t n);
// Gives the named tensor a's values: lends a's bytes when they are in the tensor's dtype and no
// instruction writes the tensor (a must then outlive mem, unchanged), else stores a converted
// copy (no-op when the trace has no such tensor).
void put_tensor(DeviceMemory& mem, const Trace& t, const char* name, const TypedArray& a);
// The named tensor's values as fp32 (logic_error when the trace has no such tensor).
std::vector<float> get_tensor(const DeviceMemory& mem, const Trace& t, const char* name);

}  // namespace bnsim::num
