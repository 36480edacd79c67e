#pragma once
// The timeline of a run as Chrome trace-event JSON (opens in ui.perfetto.dev or chrome://tracing):
// one process per core; one track per engine, per DMA queue and for the hardware DGE units.
// Engine slices are named by opcode with the tile (unit), slot, phase and role in their args;
// a semaphore wait shows as a "wait" slice before the instruction, with a flow arrow from the
// dependency that released it. DMA queue slices span first descriptor start to last landed;
// overlapping DMAs of one queue go to numbered sub-tracks.
#include <iosfwd>

#include "models/hw_config.h"
#include "sim/report/provenance.h"
#include "sim/simulate/simulate.h"
#include "trace/trace.h"

namespace bnsim {

void write_timeline(std::ostream& out, const Trace& trace, const HwConfig& hw, const SimResult& r,
                    const Provenance& provenance);

}  // namespace bnsim
