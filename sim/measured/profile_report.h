#pragma once
// A simulated run written as a profile, in the Neuron profiler's tables and field names, so it
// can be set beside a real trn2 capture (and read back by bnsim's own importers). A profile is
// per NeuronCore: with lnc 2 the tables hold core 0.
#include "kernels/kernel_target.h"
#include "sim/config/run_config.h"
#include "sim/measured/profile.h"
#include "sim/simulate/simulate.h"

namespace bnsim {

// Instructions: compute instructions from start to end on their engine; a DMA as its trigger on
// the issuing engine (as the timeline shows it). DMA packets: one per (DMA, DMA engine) with the
// bytes that engine moved, spanning the DMA's data movement (descriptor-level times are not
// recorded). Summary: total_time (the kernel, without the launch cost, in seconds), per-engine
// active and instruction times and counts, DMA active time and transfer counts, HBM bytes.
// Metadata: is_simulation true, the simulator, kernel, config and latency with launch.
Profile simulated_profile(const RunConfig& cfg, const GeneratedKernel& k, const SimResult& r);

// The profiler's engine name for a bnsim engine (act -> scalar, dve -> vector, pool -> gpsimd, pe -> tensor).
const char* profiler_engine_name(Engine e);

}  // namespace bnsim
