#pragma once
// The hardware descriptor-generation engines (DGE) of a core: dma.hw_dge_units blocks, each
// generating one DMA's descriptors at a time in dma.issue_ns. With dma.dge_bound_to_issuer a DMA
// takes the block its issuing engine commands (the Sync engine the first, ACT the second), so one
// engine's DMAs are generated one after another; without it, the block that frees first. Casting
// transfers cannot use them: their descriptors are generated in software on GpSimd (the Pool
// engine's stream pays that).
#include <vector>

#include "models/hw_config.h"
#include "trace/engine.h"

namespace bnsim {

class Dge {
public:
    explicit Dge(const DmaParams& p)
        : issue_ns_(p.issue_ns), bound_(p.dge_bound_to_issuer != 0), free_at_(size_t(p.hw_dge_units), 0.0) {}

    // The block an engine commands when blocks are bound to their issuer: Sync the first, ACT
    // the second (modulo the blocks there are).
    static size_t block_of(Engine issuer) { return issuer == Engine::Act ? 1 : 0; }

    // Reserves a block for a DMA `issuer` triggered at now_ns; returns [start, end) of its issue.
    std::pair<double, double> issue(double now_ns, Engine issuer) {
        size_t best = 0;
        if (bound_) {
            best = block_of(issuer) % free_at_.size();
        } else {
            for (size_t i = 1; i < free_at_.size(); ++i)
                if (free_at_[i] < free_at_[best]) best = i;
        }
        const double start = free_at_[best] > now_ns ? free_at_[best] : now_ns;
        free_at_[best] = start + issue_ns_;
        busy_ns_ += issue_ns_;
        return {start, start + issue_ns_};
    }
    double busy_ns() const { return busy_ns_; }
    size_t units() const { return free_at_.size(); }

private:
    double issue_ns_;
    bool bound_;
    std::vector<double> free_at_;
    double busy_ns_ = 0;
};

}  // namespace bnsim
