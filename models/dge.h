#pragma once
// The hardware descriptor-generation engines (DGE) of a core: dma.hw_dge_units blocks, each
// generating one DMA's descriptors at a time in dma.issue_ns. A DMA triggered from the Sync (or
// ACT) stream takes the unit that frees first. Casting transfers cannot use them: their
// descriptors are generated in software on GpSimd (the Pool engine's stream pays that).
#include <vector>

#include "models/hw_config.h"

namespace bnsim {

class Dge {
public:
    explicit Dge(const DmaParams& p) : issue_ns_(p.issue_ns), free_at_(size_t(p.hw_dge_units), 0.0) {}

    // Reserves a unit for a DMA triggered at now_ns; returns [start, end) of its issue.
    std::pair<double, double> issue(double now_ns) {
        size_t best = 0;
        for (size_t i = 1; i < free_at_.size(); ++i)
            if (free_at_[i] < free_at_[best]) best = i;
        const double start = free_at_[best] > now_ns ? free_at_[best] : now_ns;
        free_at_[best] = start + issue_ns_;
        busy_ns_ += issue_ns_;
        return {start, start + issue_ns_};
    }
    double busy_ns() const { return busy_ns_; }
    size_t units() const { return free_at_.size(); }

private:
    double issue_ns_;
    std::vector<double> free_at_;
    double busy_ns_ = 0;
};

}  // namespace bnsim
