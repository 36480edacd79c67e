#include "kernels/batch_norm_bwd/numerics/validate.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "kernels/batch_norm_bwd/numerics/channel_check.h"
#include "kernels/batch_norm_bwd/numerics/dx_tiles.h"
#include "kernels/batch_norm_bwd/numerics/mask_probe.h"
#include "kernels/batch_norm_bwd/batch_norm_bwd.h"
#include "kernels/batch_norm_bwd/sharding.h"
#include "kernels/batch_norm_bwd/numerics/oracle.h"
#include "numerics/bf16.h"
#include "numerics/device_memory.h"
#include "numerics/executor.h"
#include "numerics/hbm_io.h"
#include "numerics/npy.h"
#include "numerics/parallel.h"
#include "numerics/runners.h"

namespace bnsim::bn {
namespace {

// Laps into the result's phase_seconds.
struct Laps {
    ValidateResult& r;
    num::ValidationResult timing;
    num::StepTimer timer{timing};
    void operator()(const char* what) {
        timer.lap(what);
        r.phase_seconds = timing.phase_seconds;
    }
};

// The observers every execution runs through: the hazard checker, the mask probe and the
// executor (last, so the others see an instruction before its data moves).
struct Emulation {
    num::FunctionalExecutor ex;
    num::HazardChecker hz;
    MaskProbe probe;
    num::ObserverFanout fan;
    Emulation(num::DeviceMemory& mem, const Trace& trace, const Params& p, const ValidateOptions& opts)
        : ex(mem, executor_options(opts)), hz(trace), probe(ex, p) {
        fan.add(&hz);
        fan.add(&probe);
        fan.add(&ex);
    }
    static num::ExecutorOptions executor_options(const ValidateOptions& opts) {
        num::ExecutorOptions eo;
        eo.scale_bias_operand_bits = opts.scale_bias_operand_bits;
        return eo;
    }
    void report(ValidateResult& res) const {
        res.hazards = hz.check();
        res.dependency_edges_checked = hz.edges_checked();
        res.instructions = ex.finished();
    }
};

// Runs the trace on the inputs held whole; fills the result's hazards and outputs.
void run_whole(const Trace& trace, const Params& p, const BnInputs& in, const num::Runner& run, num::DeviceMemory& mem, Emulation& em, ValidateResult& res, Laps& lap) {
    const size_t n = size_t(p.shape.elements());
    const size_t C = size_t(p.shape.C);
    num::put_tensor(mem, trace, "dy", in.dy);  // lent, not copied
    num::put_tensor(mem, trace, "x_in", in.x_in);
    num::put_tensor(mem, trace, "means", in.means.data(), C);
    num::put_tensor(mem, trace, "variances", in.variances.data(), C);
    num::put_tensor(mem, trace, "gamma", in.gamma.data(), C);
    num::put_tensor(mem, trace, "beta", in.beta.data(), C);
    if (const HbmTensor* m = trace.find_tensor("relu_mask")) {
        if (in.relu_mask.size() != n) throw std::logic_error("numerics: the run needs a relu_mask input");
        if (!mem.borrow(m->id, in.relu_mask.data(), n)) std::memcpy(mem.hbm(m->id).data(), in.relu_mask.data(), n);
    }
    lap("load inputs");
    run(trace, em.fan);
    lap("execute trace");
    em.report(res);
    const HbmTensor* tdx = trace.find_tensor("dx");
    if (!tdx) throw std::logic_error("numerics: the trace has no dx tensor");
    res.out_dx_dtype = tdx->dtype;
    res.out_dx_bytes = std::move(mem.hbm(tdx->id));
    res.out_dgamma = num::get_tensor(mem, trace, "dgamma");
    res.out_dbeta = num::get_tensor(mem, trace, "dbeta");
    lap("check hazards");
}

// Runs body(c) for every channel in [c0, c1) on every hardware thread (the checks' work is per
// channel; results are combined in channel order, the same for any thread count).
void for_each_channel(int64_t c0, int64_t c1, const std::function<void(int64_t)>& body) {
    num::parallel_for(size_t(c1 - c0), 0, [&](size_t i) { body(c0 + int64_t(i)); });
}

// Copies channel c's B rows of a [B, per_batch, ...] array (rows of row_bytes) into out.
void gather_channel(const uint8_t* all, int64_t B, int64_t per_batch, int64_t c, size_t row_bytes,
                    std::vector<uint8_t>& out) {
    out.resize(size_t(B) * row_bytes);
    for (int64_t b = 0; b < B; ++b)
        std::memcpy(out.data() + size_t(b) * row_bytes, all + size_t(b * per_batch + c) * row_bytes, row_bytes);
}

// The mask the kernel applied to channel c (from the probe's record of its tile).
const uint8_t* applied_mask(const Params& p, MaskTiles& applied, int64_t c, std::vector<uint8_t>& buf) {
    if (!p.fuse_relu) return nullptr;
    const int k = int(c / kPMax);
    gather_channel(applied.tile(k).data(), p.shape.B, ctile_size(p.shape, k), c - ctile_start(k),
                   size_t(p.shape.spatial()), buf);
    return buf.data();
}

// Checks every channel of a run whose inputs and outputs are held whole.
std::vector<ChannelResult> check_all_channels(const Params& p, const BnInputs& in, const ValidateOptions& opts,
                                              const ValidateResult& res, MaskTiles& applied) {
    std::vector<ChannelResult> ch(size_t(p.shape.C));
    const int64_t B = p.shape.B, C = p.shape.C;
    const size_t S = size_t(p.shape.spatial()), ds = size_t(dtype_size(p.dtype));
    if (p.fuse_relu)  // only a fused ReLU applies a mask; the record is made before the threads read it
        for (int k = 0; k * kPMax < C; ++k) applied.tile(k);
    for_each_channel(0, C, [&](int64_t c) {
        thread_local std::vector<uint8_t> mask, ap;
        ChannelData d;  // dy, x and dx read in place: channel c's rows are C rows apart
        d.dy = in.dy.bytes.data() + size_t(c) * S * ds;
        d.x = in.x_in.bytes.data() + size_t(c) * S * ds;
        d.dx = res.out_dx_bytes.data() + size_t(c) * S * size_t(dtype_size(res.out_dx_dtype));
        d.stride = C * int64_t(S);
        if (p.uses_mask()) {
            gather_channel(in.relu_mask.data(), B, C, c, S, mask);
            d.mask = mask.data();
        }
        d.applied = applied_mask(p, applied, c, ap);
        ch[size_t(c)] = check_channel(p, opts, in, c, d);
    });
    return ch;
}

// The pass/fail of a checked result.
void judge_result(ValidateResult& res) {
    for (num::OutputCheck* o : {&res.dx, &res.dgamma, &res.dbeta}) num::judge(*o);
    res.pass = res.hazards.empty() && res.mask.flips_outside_kink == 0;
    for (const num::OutputCheck* o : {&res.dx, &res.dgamma, &res.dbeta})
        res.pass = res.pass && o->kernel_pass && o->oracle_pass;
}

// ---- streamed ------------------------------------------------------------------------------

// The generated inputs, page by page as the trace reads them.
void read_generated(const Params& p, const BnInputs& cols, const HbmTensor& t, uint64_t lo, uint64_t hi, uint8_t* dst) {
    const std::string& n = t.name;
    if (n == "dy" || n == "x_in") return generate_rows(p, p.inputs, n == "dy" ? kSaltDy : kSaltX, lo, hi, dst);
    if (n == "relu_mask") {
        std::vector<uint8_t> x(size_t(hi - lo) * size_t(p.shape.spatial() * dtype_size(p.dtype)));
        generate_rows(p, p.inputs, kSaltX, lo, hi, x.data());
        return mask_rows(p, cols, lo, hi, x.data(), dst);
    }
    const std::vector<float>* col = n == "means" ? &cols.means : n == "variances" ? &cols.variances
                                  : n == "gamma" ? &cols.gamma : n == "beta" ? &cols.beta : nullptr;
    if (!col || t.row_bytes != 4) throw std::logic_error("numerics: no generated input for HBM tensor " + n);
    std::memcpy(dst, col->data() + lo, size_t(hi - lo) * 4);
}

// Receives the kernel's dx rows as the run makes them final and checks a channel tile once all
// of its rows are in: the tile's inputs generated again channel by channel, its dx and applied
// mask then released.
class TileChecks {
public:
    TileChecks(const Params& p, const ValidateOptions& opts, const BnInputs& cols, MaskProbe& probe,
               const HbmTensor& dx, std::vector<ChannelResult>& out)
        : p_(p), opts_(opts), cols_(cols), probe_(probe), dx_(p.shape, dx.row_bytes), out_(out) {}

    void take_dx(const HbmTensor& t, uint64_t lo, uint64_t hi, std::unique_ptr<uint8_t[]>& page) {
        for (int k : dx_.add(lo, hi, std::move(page), (hi - lo) * t.row_bytes)) check(k, t.row_bytes);
    }

private:
    const Params& p_;
    const ValidateOptions& opts_;
    const BnInputs& cols_;
    MaskProbe& probe_;
    DxTiles dx_;
    std::vector<ChannelResult>& out_;

    void check(int k, uint64_t dx_row_bytes) {
        const Shape& s = p_.shape;
        const int64_t c0 = ctile_start(k), ck = ctile_size(s, k);
        const size_t S = size_t(s.spatial()), ds = size_t(dtype_size(p_.dtype)), rb = size_t(dx_row_bytes);
        if (p_.fuse_relu) probe_.record().tile(k);  // made before the threads read it
        for_each_channel(c0, c0 + ck, [&](int64_t c) {
            thread_local std::vector<uint8_t> dy, x, mask, dx, ap;
            dy.resize(size_t(s.B) * S * ds);
            x.resize(size_t(s.B) * S * ds);
            dx.resize(size_t(s.B) * rb);
            for (int64_t b = 0; b < s.B; ++b) {
                const uint64_t r = uint64_t(b * s.C + c);
                generate_rows(p_, p_.inputs, kSaltDy, r, r + 1, dy.data() + size_t(b) * S * ds);
                generate_rows(p_, p_.inputs, kSaltX, r, r + 1, x.data() + size_t(b) * S * ds);
                std::memcpy(dx.data() + size_t(b) * rb, dx_.row(k, b, c - c0), rb);
            }
            ChannelData d;
            d.dy = dy.data();
            d.x = x.data();
            d.dx = dx.data();
            if (p_.uses_mask()) {
                mask.resize(size_t(s.B) * S);
                for (int64_t b = 0; b < s.B; ++b) {
                    const uint64_t r = uint64_t(b * s.C + c);
                    mask_rows(p_, cols_, r, r + 1, x.data() + size_t(b) * S * ds, mask.data() + size_t(b) * S);
                }
                d.mask = mask.data();
            }
            d.applied = applied_mask(p_, probe_.record(), c, ap);
            out_[size_t(c)] = check_channel(p_, opts_, cols_, c, d);
        });
        dx_.release(k);
        if (p_.fuse_relu) probe_.record().release(k);
    }
};

}  // namespace

uint64_t validate_bytes_needed(const Trace& trace, const Params& p, int partitions, uint64_t bpp) {
    const uint64_t n = uint64_t(p.shape.elements());
    const uint64_t inputs = input_bytes(p);  // dy and x_in in the run's dtype (+ mask), held throughout
    // While the trace runs: the device memory (the pages its instructions touch; the input
    // tensors are the inputs above, lent) and the mask probe's record.
    const uint64_t executing = inputs - 2 * n * uint64_t(dtype_size(p.dtype)) - (p.uses_mask() ? n : 0) +
                               num::DeviceMemory::bytes_needed(trace, partitions, bpp) + (p.fuse_relu ? n : 0);
    // Then: the kernel's dx bytes and applied mask, and one thread's channel check (each
    // further thread of the per-channel checks holds its own: left out so the estimate is the
    // same on any machine).
    const uint64_t checking = inputs + n * uint64_t(dtype_size(p.dtype)) + (p.fuse_relu ? n : 0) + channel_check_bytes(p, true);
    return std::max(executing, checking);
}

uint64_t streamed_bytes_needed(const Trace& trace, const Params& p, int partitions, uint64_t bpp,
                               const num::ExecutionOrder& order) {
    const Shape& s = p.shape;
    const int tiles = int((s.C + kPMax - 1) / kPMax);
    const uint64_t S = uint64_t(s.spatial());
    auto tile_elems = [&](int k) { return uint64_t(s.B * ctile_size(s, k)) * S; };
    // Held besides the HBM pages: the SBUF images, the per-channel values, and per channel tile
    // the kernel's dx and applied mask from their first element to the tile's check.
    const uint64_t fixed = num::DeviceMemory::sbuf_bytes_needed(trace, partitions, bpp) + uint64_t(s.C) * 16;
    // The executor's scratch: two fp32 rows of the widest operand, and the results it stages
    // (their buffers are kept for reuse: the largest total so far).
    uint64_t widest = 0;
    for (const Instruction& in : trace.instructions())
        for (const auto* ops : {&in.srcs, &in.dsts})
            for (const Operand& o : *ops) widest = std::max(widest, o.elems_per_row());
    const uint64_t operands = 2 * 4 * widest;
    uint64_t staged_now = 0, results = 0;
    std::map<uint32_t, bool> in_flight;  // id -> its results are staged
    auto stage = [&](const Instruction& in, bool& staged) {
        if (staged) return;
        staged = true;
        for (const Operand& o : in.dsts) staged_now += o.region.bytes();
        results = std::max(results, staged_now);
    };
    const HbmTensor* tdx = trace.find_tensor("dx");
    if (!tdx) throw std::logic_error("numerics: the trace has no dx tensor");
    DxTiles dx(s, tdx->row_bytes);
    uint64_t masks = 0, peak = 0, delivering = 0;
    std::vector<bool> mask_held(size_t(tiles), false);
    std::unique_ptr<num::HbmPages> pages;
    auto at = [&](uint64_t extra) {
        const uint64_t hbm = pages->resident_bytes() - delivering;  // a page handed to dx is counted there
        peak = std::max(peak, fixed + operands + results + hbm + dx.held_bytes() + masks + extra);
    };
    // A tile's check runs its channels on every hardware thread, each with its own buffers.
    auto check_bytes = [&](int k) {
        return channel_check_bytes(p, false) * uint64_t(std::min<int64_t>(ctile_size(s, k), num::default_threads()));
    };
    num::HbmStreamIO io;
    io.take_output = [&](const HbmTensor& t, uint64_t lo, uint64_t hi, std::unique_ptr<uint8_t[]>&) {
        if (t.id != tdx->id) return;
        delivering = (hi - lo) * t.row_bytes;
        for (int k : dx.add(lo, hi, nullptr, delivering)) {
            at(check_bytes(k));
            dx.release(k);
            if (mask_held[size_t(k)]) masks -= tile_elems(k);
        }
        delivering = 0;
    };
    pages = std::make_unique<num::HbmPages>(trace, io, false);
    const auto& ins = trace.instructions();
    for (const num::ExecutionEvent& e : order) {
        const Instruction& in = ins.at(e.id);
        if (!e.start) {
            for (auto& [id, staged] : in_flight)
                if (id != in.id && num::writes_what_it_reads(in, ins.at(id))) stage(ins.at(id), staged);
            if (in_flight.at(in.id))
                for (const Operand& o : in.dsts) staged_now -= o.region.bytes();
            in_flight.erase(in.id);
            pages->release(in);
            continue;
        }
        bool& staged = in_flight[in.id] = false;
        if (num::stages_own_results(in)) stage(in, staged);
        const bool applies_mask = in.tag.role == kRoleApplyLoadedMask || in.tag.role == kRoleApplyRecomputedMask;
        if (p.fuse_relu && applies_mask && in.tag.ctile >= 0 && !mask_held.at(size_t(in.tag.ctile))) {
            mask_held[size_t(in.tag.ctile)] = true;
            masks += tile_elems(in.tag.ctile);
        }
        pages->acquire(in);
        at(0);
    }
    pages->flush();
    return peak;
}

ValidateResult validate_batch_norm_bwd(const Trace& trace, const Params& p, const BnInputs& in,
                                       const ValidateOptions& opts, const num::Runner& run) {
    ValidateResult res;
    Laps lap{res, {}};
    MaskTiles applied;
    {  // the device memory is released before the checks
        num::DeviceMemory mem(trace, opts.partitions, opts.sbuf_bytes_per_partition);
        lap("allocate device memory");
        Emulation em(mem, trace, p, opts);
        run_whole(trace, p, in, run, mem, em, res, lap);
        applied = em.probe.take_record();
    }
    const std::vector<ChannelResult> channels = check_all_channels(p, in, opts, res, applied);
    lap("oracle, reference and errors per channel");
    combine_channels(p, opts, in, channels, res);
    judge_result(res);
    lap("combine channels");
    return res;
}

ValidateResult validate_streamed(const Trace& trace, const Params& p, const BnInputs& cols,
                                 const ValidateOptions& opts, const num::Runner& run) {
    ValidateResult res;
    Laps lap{res, {}};
    std::vector<ChannelResult> channels(size_t(p.shape.C));
    res.out_dgamma.assign(size_t(p.shape.C), NAN);
    res.out_dbeta.assign(size_t(p.shape.C), NAN);
    {
        std::unique_ptr<TileChecks> checks;
        num::HbmStreamIO io;
        io.read_input = [&](const HbmTensor& t, uint64_t lo, uint64_t hi, uint8_t* dst) {
            read_generated(p, cols, t, lo, hi, dst);
        };
        io.take_output = [&](const HbmTensor& t, uint64_t lo, uint64_t hi, std::unique_ptr<uint8_t[]>& page) {
            if (t.name == "dx") {
                res.out_dx_dtype = t.dtype;
                return checks->take_dx(t, lo, hi, page);
            }
            std::vector<float>* col = t.name == "dgamma" ? &res.out_dgamma : t.name == "dbeta" ? &res.out_dbeta : nullptr;
            if (col && t.row_bytes == 4) num::load_elems(page.get(), DType::fp32, size_t(hi - lo), col->data() + lo);
        };
        num::DeviceMemory mem(trace, opts.partitions, opts.sbuf_bytes_per_partition, io);
        lap("allocate device memory");
        Emulation em(mem, trace, p, opts);
        const HbmTensor* tdx = trace.find_tensor("dx");
        if (!tdx) throw std::logic_error("numerics: the trace has no dx tensor");
        checks = std::make_unique<TileChecks>(p, opts, cols, em.probe, *tdx, channels);
        run(trace, em.fan);
        mem.flush();
        em.report(res);
        lap("execute trace, check channel tiles as they finish");
    }
    combine_channels(p, opts, cols, channels, res);
    judge_result(res);
    lap("combine channels");
    return res;
}

std::vector<float> ValidateResult::dx_values() const {
    std::vector<float> v(out_dx_bytes.size() / size_t(dtype_size(out_dx_dtype)));
    num::load_elems(out_dx_bytes.data(), out_dx_dtype, v.size(), v.data());
    return v;
}

std::vector<num::NpyFile> output_files(const Params& p, const ValidateResult& r) {
    const auto& s = p.shape;
    const std::vector<int64_t> full{s.B, s.C, s.D, s.H, s.W}, col{s.C, 1};
    return {
        {"dx.npy", [&r, full](std::ostream& o) { num::write_npy(o, full, r.dx_values().data()); }},
        {"dgamma.npy", [&r, col](std::ostream& o) { num::write_npy(o, col, r.out_dgamma.data()); }},
        {"dbeta.npy", [&r, col](std::ostream& o) { num::write_npy(o, col, r.out_dbeta.data()); }},
    };
}

}  // namespace bnsim::bn
