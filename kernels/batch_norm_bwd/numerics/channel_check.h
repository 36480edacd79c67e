#pragma once
// batch_norm_bwd's outputs checked channel by channel. Every figure of a channel (its dx errors,
// mask flips, reference and oracle sums) depends on that channel's data alone, so a channel is
// checked as soon as its inputs and the kernel's outputs for it are at hand: all channels after
// the whole run, or a channel tile at a time while a streamed run goes on. The per-channel
// results then combine, in channel order, into the same figures either way.
#include <cstdint>
#include <vector>

#include "kernels/batch_norm_bwd/numerics/inputs.h"
#include "kernels/batch_norm_bwd/numerics/validate.h"
#include "numerics/comparison.h"

namespace bnsim::bn {

// One channel's [B, spatial] rows (row b = batch b), in the dtypes the run holds them in. The
// rows of dy, x and dx lie `stride` elements apart (0: contiguous), so a channel of tensors held
// whole is read in place; the masks' rows are contiguous.
struct ChannelData {
    const uint8_t* dy = nullptr;       // p.dtype
    const uint8_t* x = nullptr;        // p.dtype
    const uint8_t* dx = nullptr;       // the kernel's output, in its dtype
    int64_t stride = 0;                // elements from one row of dy, x and dx to the next
    const uint8_t* mask = nullptr;     // the supplied mask (uint8), or null
    const uint8_t* applied = nullptr;  // the mask the kernel applied (0/1, 2 = never), fuse_relu only
};

// Everything the combination needs of one channel.
struct ChannelResult {
    num::ErrorAccumulator dx_k, dx_o;  // dx of the kernel and of the float32 oracle
    num::DeferredMaxRel rel_k, rel_o;  // their relative errors, until the floor is known
    double se_ko = 0, sq_o = 0;        // kernel vs oracle
    double max_ref = 0;                // max |reference dx| (with the kernel's kink flips)
    MaskCheck mask;                    // counts and maxima of this channel (mode unset)
    double rstd = 0, dy_l2 = 0, dyx_l2 = 0, dyx_sum = 0;
    double term_scale = 0;             // |gamma| rstd rms(dy): the size of the terms dx cancels
    double ref_dbeta_k = 0, ref_dgamma_k = 0, ref_dbeta_o = 0, ref_dgamma_o = 0;
    float oracle_dbeta = 0, oracle_dgamma = 0;
};

// Checks channel c. Thread-safe (per-thread scratch); `in` supplies the per-channel columns.
ChannelResult check_channel(const Params& p, const ValidateOptions& opts, const BnInputs& in, int64_t c,
                            const ChannelData& d);

// Fills res.dx, res.dgamma, res.dbeta and res.mask from all channels' results (in channel order)
// and the kernel's dgamma and dbeta (res.out_dgamma, res.out_dbeta).
void combine_channels(const Params& p, const ValidateOptions& opts, const BnInputs& in,
                      const std::vector<ChannelResult>& channels, ValidateResult& res);

// Bytes one thread's channel check holds: its copies of the channel's rows (dy, x and dx only
// when not read in place) and the oracle's and reference's scratch.
uint64_t channel_check_bytes(const Params& p, bool in_place);

}  // namespace bnsim::bn
