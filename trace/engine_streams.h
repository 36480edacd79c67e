#pragma once
// A core's program as its engines run it: per engine, the instruction ids in execution order
// (what the scheduling pass produces and the models execute).
#include <array>
#include <cstdint>
#include <vector>

#include "trace/engine.h"

namespace bnsim {

using CoreStreams = std::array<std::vector<uint32_t>, kNumEngines>;

}  // namespace bnsim
