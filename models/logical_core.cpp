#include "models/logical_core.h"

#include <string>

namespace bnsim {

LogicalCore::LogicalCore(sc_core::sc_module_name name, const std::vector<CoreStreams>& streams,
                         const CostModel& cost, const Trace& trace, Scoreboard& sb)
    : sc_core::sc_module(name), hbm_("hbm", cost.hw().hbm), dma_engines_("dma_engines", cost.hw(), hbm_) {
    if (streams.size() > 1) link_ = std::make_unique<Link>("link", cost, trace, sb);
    for (size_t c = 0; c < streams.size(); ++c)
        cores_.push_back(std::make_unique<NeuronCore>(("core" + std::to_string(c)).c_str(), uint8_t(c), streams[c],
                                                      cost, trace, sb, dma_engines_, link_.get()));
}

}  // namespace bnsim
