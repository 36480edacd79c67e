#include "kernels/batch_norm_bwd/batch_norm_bwd.h"

#include <algorithm>
#include <string>

#include "kernels/batch_norm_bwd/memory_config.h"
#include "kernels/batch_norm_bwd/sbuf_allocator.h"
#include "kernels/batch_norm_bwd/sharding.h"

namespace bnsim::bn {
namespace {

using json = nlohmann::ordered_json;

// One work unit of the shared tile walk.
struct Unit {
    int walk = 0;      // index in this core's walk
    int ct = 0;        // channel tile
    int64_t b_base = 0;
    int64_t sp = 0;    // spatial tile
    int tile = 0;      // index of the unit inside its channel tile (partial column)
    bool first_in_ct = false, last_in_ct = false;
};

// SBUF addresses of one core's program, from the allocator.
struct Layout {
    CoreShard shard;
    MemoryPlan plan;
    std::vector<Unit> walk;
    // outer scope: per-channel columns [128, n_c_tiles] fp32 and [128, 1] scratch columns
    uint64_t means = 0, gamma = 0, rstd = 0, dxs = 0, dbeta = 0, dgamma = 0;
    uint64_t mean_x = 0, intermediate = 0, neg_mean_scaled = 0, scratch = 0;
    std::vector<uint64_t> direct_x;  // heap slots, shared by both phases
    // phase 1 scope
    uint64_t yx_col = 0, beta = 0, true_beta = 0, partials = 0, dyx = 0;
    std::vector<uint64_t> dy, x1, relu;
    // phase 2 scope
    uint64_t var_x = 0;
    std::vector<uint64_t> x2, dx;
    uint64_t live1 = 0, live2 = 0;
};

// Scratch column roles (12 columns of A(4) bytes are reserved by the kernel's budget). A band
// group packs up to 4 fp32 band sums 4 bytes apart inside slots [g, g+4).
constexpr int kScratchDbetaBands = 0;  // slots 0..3
constexpr int kScratchYxBands = 4;     // slots 4..7
constexpr int kScratchYxPerBand = 8;
constexpr int kScratchRecv = 9;
constexpr int kScratchProduct = 10;

class Generator {
public:
    Generator(const Params& p, const KernelTarget& t) : p_(p), t_(t) {}

    GeneratedKernel run() {
        validate(p_, t_.num_cores);
        sh_ = shard(p_.shape, t_.num_cores);
        out_.trace.kernel = "batch_norm_bwd";
        out_.trace.num_cores = t_.num_cores;
        dsize_ = dtype_size(p_.dtype);
        add_tensors();
        for (const auto& cs : sh_.cores) layouts_.push_back(make_layout(cs));
        T().reserve(instruction_bound());
        for (const auto& L : layouts_)
            if (!L.shard.empty()) emit_core(L);
        number_queues();
        describe();  // the dependencies are the caller's to derive (RunConfig::generate)
        return std::move(out_);
    }

private:
    const Params& p_;
    const KernelTarget& t_;
    Sharding sh_;
    GeneratedKernel out_;
    std::vector<Layout> layouts_;
    int dsize_ = 2;
    uint32_t t_dy_ = 0, t_x_ = 0, t_mask_ = 0, t_means_ = 0, t_var_ = 0, t_gamma_ = 0, t_beta_ = 0;
    uint32_t t_dx_ = 0, t_dgamma_ = 0, t_dbeta_ = 0;
    std::vector<uint32_t> t_direct_x_;  // per core

    const Shape& S() const { return p_.shape; }
    Trace& T() { return out_.trace; }

    // Renumbers each core's queues from stream roles to the declared rule: tile streams in order
    // of first use, then the column stream (so a queue number means the same as in a traced NKI
    // kernel's trace, and no number is left unused).
    void number_queues() {
        for (int c = 0; c < t_.num_cores; ++c) {
            int16_t number[kQueueColumns + 1];
            std::fill(std::begin(number), std::end(number), int16_t(-1));
            int16_t next = 0;
            bool columns = false;
            for (const auto& in : T().instructions()) {
                if (in.core != c || !in.is_dma()) continue;
                if (in.dma.queue == kQueueColumns) columns = true;
                else if (number[in.dma.queue] < 0) number[in.dma.queue] = next++;
            }
            if (columns) number[kQueueColumns] = next;
            for (auto& in : T().instructions())
                if (in.core == c && in.is_dma()) in.dma.queue = uint16_t(number[in.dma.queue]);
        }
    }

    // ---- HBM tensors -------------------------------------------------------------------
    void add_tensors() {
        const Shape& s = S();
        std::vector<int64_t> full{s.B, s.C, s.D, s.H, s.W};
        auto big = [&](const char* name, DType dt, bool in) {
            HbmTensor t;
            t.name = name;
            t.dtype = dt;
            t.shape = full;
            t.rows = uint64_t(s.B * s.C);
            t.row_bytes = uint64_t(s.spatial()) * dtype_size(dt);
            t.is_input = in;
            t.is_output = !in;
            return T().add_tensor(t);
        };
        auto column = [&](const char* name, bool in, bool two_d) {
            HbmTensor t;
            t.name = name;
            t.dtype = DType::fp32;
            t.shape = two_d ? std::vector<int64_t>{s.C, 1} : std::vector<int64_t>{s.C};
            t.rows = uint64_t(s.C);
            t.row_bytes = 4;
            t.is_input = in;
            t.is_output = !in;
            return T().add_tensor(t);
        };
        t_dy_ = big("dy", p_.dtype, true);
        t_x_ = big("x_in", p_.dtype, true);
        if (p_.uses_mask()) t_mask_ = big("relu_mask", DType::u8, true);
        t_means_ = column("means", true, false);
        t_var_ = column("variances", true, false);
        t_gamma_ = column("gamma", true, true);
        t_beta_ = column("beta", true, true);
        t_dx_ = big("dx", p_.dtype, false);
        t_dgamma_ = column("dgamma", false, true);
        t_dbeta_ = column("dbeta", false, true);
        for (const auto& cs : sh_.cores) {
            HbmTensor t;
            t.name = "direct_x";
            t.dtype = p_.compute_dtype;
            t.owner_core = cs.core;
            int64_t owned_c = 0;
            for (int ct = cs.ct_lo; ct < cs.ct_hi; ++ct) owned_c += ctile_size(S(), ct);
            t.shape = {cs.owned_batch(), owned_c, S().spatial()};
            t.rows = uint64_t(std::max<int64_t>(cs.owned_batch() * owned_c, 1));
            t.row_bytes = uint64_t(S().spatial()) * dtype_size(p_.compute_dtype);
            t_direct_x_.push_back(T().add_tensor(t));
        }
    }

    // ---- SBUF layout -------------------------------------------------------------------
    Layout make_layout(const CoreShard& cs) {
        Layout L;
        L.shard = cs;
        if (cs.empty()) return L;
        BudgetInputs in;
        in.usable_bytes = t_.sbuf_usable_bytes;
        in.align = t_.sbuf_align;
        in.n_c_tiles = sh_.n_c_tiles;
        in.n_owned_c_tiles = cs.n_owned_c_tiles();
        in.owned_batch = cs.owned_batch();
        in.rep = cs.rep;
        in.spatial = S().spatial();
        in.dsize = dsize_;
        in.fuse_relu = p_.fuse_relu;
        in.recompute = p_.recomputes_mask();
        in.compute_dsize = dtype_size(p_.compute_dtype);
        L.plan = resolve_memory_config(in, p_.memory.value_or(MemoryChoice{}));
        const int il = L.plan.interleave;
        const int64_t f = L.plan.fp.f_tile;
        const uint64_t colw = uint64_t(sh_.n_c_tiles) * 4;
        const uint64_t tile_bytes = uint64_t(f) * dsize_;
        const uint64_t bf16_tile = uint64_t(f) * dtype_size(p_.compute_dtype);

        SbufAllocator a(L.plan.budget, t_.sbuf_align);
        a.open_scope();  // outer
        for (uint64_t* c : {&L.means, &L.gamma, &L.rstd, &L.dxs, &L.dbeta, &L.dgamma, &L.mean_x,
                            &L.intermediate, &L.neg_mean_scaled})
            *c = a.alloc(colw);
        L.scratch = a.alloc(12 * align_up(4, t_.sbuf_align));
        for (int s = 0; s < il; ++s) L.direct_x.push_back(a.heap_alloc(bf16_tile));

        a.open_scope();  // phase 1
        L.yx_col = a.alloc(colw);  // first, so both cores of a pair agree on its address
        if (p_.recomputes_mask()) {
            L.beta = a.alloc(colw);
            L.true_beta = a.alloc(colw);
        }
        L.partials = a.alloc(uint64_t(L.plan.fp.n_partials) * 4);
        L.dyx = a.alloc(uint64_t(f) * 4);
        for (int s = 0; s < il; ++s) {
            L.dy.push_back(a.alloc(tile_bytes));
            L.x1.push_back(a.alloc(tile_bytes));
            if (p_.fuse_relu) L.relu.push_back(a.alloc(bf16_tile));
        }
        L.live1 = a.live_bytes();
        check_phase(L, 1, L.live1, L.plan.phase1_bytes());
        a.close_scope();

        a.open_scope();  // phase 2
        L.var_x = a.alloc(bf16_tile);
        for (int s = 0; s < il; ++s) {
            L.x2.push_back(a.alloc(tile_bytes));
            L.dx.push_back(a.alloc(tile_bytes));
        }
        L.live2 = a.live_bytes();
        check_phase(L, 2, L.live2, L.plan.phase2_bytes());
        a.close_scope();
        for (int s = 0; s < il; ++s) a.heap_pop();
        a.close_scope();

        // The shared tile walk, counted before it is built: each unit is up to 16 instructions
        // (instruction_bound), so a walk past the trace limit is refused before any is made.
        const int64_t n_sp = L.plan.fp.n_sp_tiles;
        const double units = double(cs.ct_hi - cs.ct_lo) * double((cs.b_hi - cs.b_lo + cs.rep - 1) / cs.rep) * double(n_sp);
        if (units * 16 > double(trace_limit()))
            throw TraceTooLarge("the trace would have about " + std::to_string(uint64_t(units) * 16) +
                                " instructions, more than the " + std::to_string(trace_limit()) + " allowed");
        int walk = 0;
        for (int ct = cs.ct_lo; ct < cs.ct_hi; ++ct) {
            int tile = 0;
            for (int64_t b = cs.b_lo; b < cs.b_hi; b += cs.rep)
                for (int64_t sp = 0; sp < n_sp; ++sp) {
                    Unit u;
                    u.walk = walk++;
                    u.ct = ct;
                    u.b_base = b;
                    u.sp = sp;
                    u.tile = tile++;
                    u.first_in_ct = u.tile == 0;
                    L.walk.push_back(u);
                }
            L.walk.back().last_in_ct = true;
        }
        return L;
    }

    // The kernel asserts each phase's live SBUF against the budget's prediction.
    void check_phase(const Layout& L, int phase, uint64_t live, uint64_t predicted) const {
        if (live != predicted || live > L.plan.budget)
            throw std::logic_error("batch_norm_bwd: phase " + std::to_string(phase) + " uses " +
                                   std::to_string(live) + " bytes per partition, budget predicted " +
                                   std::to_string(predicted));
    }

    // ---- region helpers ----------------------------------------------------------------
    int64_t c_size(int ct) const { return ctile_size(S(), ct); }
    uint32_t parts(const Layout& L, int ct) const { return uint32_t(L.shard.rep * c_size(ct)); }
    int64_t sp_size(const Layout& L, const Unit& u) const {
        return std::min<int64_t>(L.plan.fp.f_tile, S().spatial() - u.sp * L.plan.fp.f_tile);
    }

    static Operand sb(uint8_t core, uint32_t p0, uint32_t p1, uint64_t addr, uint64_t bytes, DType dt) {
        return sbuf_operand(core, p0, p1, addr, bytes, dt);
    }
    // Column ct of a per-channel [128, n_c_tiles] fp32 tile, on partitions [0, n).
    static Operand col(uint8_t core, uint64_t base, int ct, uint32_t n) {
        return sb(core, 0, n, base + uint64_t(ct) * 4, 4, DType::fp32);
    }
    Operand scratch(const Layout& L, int k, uint32_t p0, uint32_t p1) const {
        return sb(uint8_t(L.shard.core), p0, p1, L.scratch + uint64_t(k) * align_up(4, t_.sbuf_align),
                  4, DType::fp32);
    }
    Operand tile(const Layout& L, const Unit& u, uint64_t addr, DType dt) const {
        return sb(uint8_t(L.shard.core), 0, parts(L, u.ct), addr, uint64_t(sp_size(L, u)) * dtype_size(dt), dt);
    }
    // Rows of a [B, C, spatial] tensor a unit covers: all bands are consecutive rows because
    // replication only happens when the channel tile is all of C.
    Operand hbm_tile(const Layout& L, const Unit& u, uint32_t tensor) {
        const HbmTensor& t = T().tensor(tensor);
        const int ds = dtype_size(t.dtype);
        const uint64_t r0 = uint64_t(u.b_base * S().C + ctile_start(u.ct));
        const uint64_t r1 = uint64_t((u.b_base + L.shard.rep - 1) * S().C + ctile_start(u.ct) + c_size(u.ct));
        const uint64_t b0 = uint64_t(u.sp * L.plan.fp.f_tile) * ds;
        Operand o;
        o.region = T().hbm(tensor, r0, r1, b0, b0 + uint64_t(sp_size(L, u)) * ds);
        o.dtype = t.dtype;
        return o;
    }
    // The core-private direct_x staging buffer [owned_batch, owned_channels, spatial].
    Operand hbm_direct_x(const Layout& L, const Unit& u) {
        int64_t owned_c = 0, c_off = 0;
        for (int ct = L.shard.ct_lo; ct < L.shard.ct_hi; ++ct) {
            if (ct < u.ct) c_off += c_size(ct);
            owned_c += c_size(ct);
        }
        const int64_t lb = u.b_base - L.shard.b_lo;
        const uint64_t r0 = uint64_t(lb * owned_c + c_off);
        const uint64_t r1 = uint64_t((lb + L.shard.rep - 1) * owned_c + c_off + c_size(u.ct));
        const int cs = dtype_size(p_.compute_dtype);
        const uint64_t b0 = uint64_t(u.sp * L.plan.fp.f_tile) * cs;
        Operand o;
        o.region = T().hbm(t_direct_x_[L.shard.core], r0, r1, b0, b0 + uint64_t(sp_size(L, u)) * cs);
        o.dtype = p_.compute_dtype;
        return o;
    }
    Operand hbm_col(uint32_t tensor, int ct) {
        Operand o;
        o.region = T().hbm(tensor, uint64_t(ctile_start(ct)), uint64_t(ctile_start(ct) + c_size(ct)), 0, 4);
        o.dtype = DType::fp32;
        return o;
    }

    // ---- instruction helpers -----------------------------------------------------------
    Instruction base(const Layout& L, Engine e, Opcode op, const Operand& main, Tag tag) const {
        Instruction in;
        in.core = uint8_t(L.shard.core);
        in.engine = e;
        in.opcode = op;
        in.partitions = main.region.rows();
        in.free_elems = main.elems_per_row();
        in.tag = tag;
        return in;
    }
    void dma(const Layout& L, const Operand& src, const Operand& dst, DgeMode dge, uint16_t queue, Tag tag) {
        const Operand& sbuf_side = dst.region.space == Space::Sbuf ? dst : src;
        Instruction in = base(L, dge == DgeMode::hardware ? Engine::Sync : Engine::Pool, Opcode::DmaCopy,
                              sbuf_side, tag);
        in.srcs = {src};
        in.dsts = {dst};
        // An HBM region names its issuing core (trace/region.h): it tells the cores' private
        // direct_x tensors apart when a dump is read back.
        for (Operand& o : in.srcs) if (o.region.space == Space::Hbm) o.region.core = in.core;
        for (Operand& o : in.dsts) if (o.region.space == Space::Hbm) o.region.core = in.core;
        in.dma.dge = dge;
        in.dma.queue = queue;
        T().append(std::move(in));
    }
    static ScalarArg imm(float v) {
        ScalarArg s;
        s.imm = v;
        return s;
    }
    static ScalarArg colarg(const Operand& c) {
        ScalarArg s;
        s.column = c;
        return s;
    }
    Instruction& activation(const Layout& L, ActFunc f, const Operand& data, const Operand& out,
                            ScalarArg scale, ScalarArg bias, Tag tag) {
        Instruction in = base(L, Engine::Act, Opcode::Activation, out, tag);
        in.act_func = f;
        in.srcs = {data};
        in.dsts = {out};
        in.scalar[0] = std::move(scale);
        in.scalar[1] = std::move(bias);
        return T().append(std::move(in));
    }
    void tensor_tensor(const Layout& L, AluOp op, const Operand& a, const Operand& b, const Operand& out, Tag tag) {
        Instruction in = base(L, Engine::Dve, Opcode::TensorTensor, out, tag);
        in.alu[0] = op;
        in.srcs = {a, b};
        in.dsts = {out};
        T().append(std::move(in));
    }
    void tensor_scalar(const Layout& L, const Operand& a, AluOp op0, ScalarArg s0, AluOp op1, ScalarArg s1,
                       const Operand& out, Tag tag) {
        Instruction in = base(L, Engine::Dve, Opcode::TensorScalar, out, tag);
        in.srcs = {a};
        in.dsts = {out};
        in.alu[0] = op0;
        in.alu[1] = op1;
        in.scalar[0] = std::move(s0);
        in.scalar[1] = std::move(s1);
        T().append(std::move(in));
    }
    void scalar_tensor_tensor(const Layout& L, const Operand& a, AluOp op0, ScalarArg s, AluOp op1,
                              const Operand& b, const Operand& out, Tag tag) {
        Instruction in = base(L, Engine::Dve, Opcode::ScalarTensorTensor, out, tag);
        in.srcs = {a, b};
        in.dsts = {out};
        in.alu[0] = op0;
        in.alu[1] = op1;
        in.scalar[0] = std::move(s);
        T().append(std::move(in));
    }
    void tensor_reduce(const Layout& L, const Operand& a, const Operand& out, Tag tag) {
        Instruction in = base(L, Engine::Dve, Opcode::TensorReduce, a, tag);
        in.alu[0] = AluOp::add;
        in.srcs = {a};
        in.dsts = {out};
        T().append(std::move(in));
    }
    void shuffle(const Layout& L, const Operand& src, const Operand& dst, Tag tag) {
        Instruction in = base(L, Engine::Dve, Opcode::NcStreamShuffle, dst, tag);
        in.srcs = {src};
        in.dsts = {dst};
        T().append(std::move(in));
    }
    // Copies a column held on partitions [0, c) to the other bands [r*c, (r+1)*c).
    void broadcast_bands(const Layout& L, uint64_t base_addr, int ct, Tag tag) {
        const uint32_t c = uint32_t(c_size(ct));
        const uint8_t core = uint8_t(L.shard.core);
        for (int r = 1; r < L.shard.rep; ++r)
            shuffle(L, col(core, base_addr, ct, c),
                    sb(core, r * c, (r + 1) * c, base_addr + uint64_t(ct) * 4, 4, DType::fp32), tag);
    }
    // Sums the bands of a column [rep*c] into [0, c): each band shuffled down into its own
    // fp32 element of a scratch group (packed 4 bytes apart, so the group is one contiguous
    // [c, rep] operand), then one tensor_reduce over the group.
    void gather_bands(const Layout& L, uint64_t col_addr, int group_slot, const Operand& out, Tag tag) {
        const uint32_t c = out.region.rows();
        const uint8_t core = uint8_t(L.shard.core);
        const uint64_t group = L.scratch + uint64_t(group_slot) * align_up(4, t_.sbuf_align);
        for (int r = 0; r < L.shard.rep; ++r)
            shuffle(L, sb(core, r * c, (r + 1) * c, col_addr, 4, DType::fp32),
                    sb(core, 0, c, group + uint64_t(r) * 4, 4, DType::fp32), tag);
        tensor_reduce(L, sb(core, 0, c, group, uint64_t(L.shard.rep) * 4, DType::fp32), out, tag);
    }

    static Tag tag(int phase, const char* what, int ct = -1, int unit = -1, int slot = -1, Role role = kRoleNone) {
        Tag t;
        t.role = role;
        t.phase = int8_t(phase);
        t.what = what;
        t.ctile = int16_t(ct);
        t.unit = unit;
        t.slot = int16_t(slot);
        return t;
    }

    // ---- the program -------------------------------------------------------------------
    // At least as many instructions as emit_core appends (per unit at most 11 in phase 1 and 5
    // in phase 2; per channel tile at most 19 plus 7 per band of replication in the prologue,
    // epilogue and coefficients), so the trace is allocated once.
    size_t instruction_bound() const {
        size_t n = 0;
        for (const auto& L : layouts_) {
            if (L.shard.empty()) continue;
            const size_t tiles = size_t(std::max(0, L.shard.ct_hi - L.shard.ct_lo));
            n += L.walk.size() * 16 + tiles * (19 + 7 * size_t(std::max(1, L.shard.rep)));
        }
        return n;
    }

    void emit_core(const Layout& L) {
        const int total = int(L.walk.size());
        const int il = L.plan.interleave;
        const int resident_from = L.plan.residency ? std::max(0, total - il) : total;
        for (const Unit& u : L.walk) {
            if (u.first_in_ct) emit_prologue(L, u.ct);
            emit_unit1(L, u, u.walk >= resident_from);
            if (u.last_in_ct) emit_epilogue(L, u.ct);
        }
        for (int ct = L.shard.ct_lo; ct < L.shard.ct_hi; ++ct) emit_coefficients(L, ct);
        for (int k = 0; k < total; ++k) {
            const Unit& u = L.walk[size_t((resident_from + k) % std::max(total, 1))];
            emit_unit2(L, u, u.walk >= resident_from);
        }
    }

    void emit_prologue(const Layout& L, int ct) {
        const uint8_t core = uint8_t(L.shard.core);
        const uint32_t c = uint32_t(c_size(ct));
        dma(L, hbm_col(t_means_, ct), col(core, L.means, ct, c), DgeMode::hardware, kQueueColumns, tag(1, "load means", ct));
        dma(L, hbm_col(t_var_, ct), col(core, L.rstd, ct, c), DgeMode::hardware, kQueueColumns, tag(1, "load variances", ct));
        dma(L, hbm_col(t_gamma_, ct), col(core, L.gamma, ct, c), DgeMode::hardware, kQueueColumns, tag(1, "load gamma", ct));
        activation(L, ActFunc::rsqrt, col(core, L.rstd, ct, c), col(core, L.rstd, ct, c), imm(1.0f),
                   imm(float(p_.eps)), tag(1, "rstd", ct));
        tensor_tensor(L, AluOp::mult, col(core, L.gamma, ct, c), col(core, L.rstd, ct, c), col(core, L.dxs, ct, c),
                      tag(1, "direct_x_scale", ct));
        broadcast_bands(L, L.dxs, ct, tag(1, "broadcast direct_x_scale", ct));
        if (p_.recomputes_mask()) {
            dma(L, hbm_col(t_beta_, ct), col(core, L.beta, ct, c), DgeMode::hardware, kQueueColumns, tag(1, "load beta", ct));
            tensor_scalar(L, col(core, L.means, ct, c), AluOp::mult, colarg(col(core, L.dxs, ct, c)), AluOp::rsubtract,
                          colarg(col(core, L.beta, ct, c)), col(core, L.true_beta, ct, c), tag(1, "true_beta", ct));
            broadcast_bands(L, L.true_beta, ct, tag(1, "broadcast true_beta", ct));
        }
    }

    void emit_unit1(const Layout& L, const Unit& u, bool resident) {
        const int s = u.walk % L.plan.interleave;
        const uint8_t core = uint8_t(L.shard.core);
        const uint32_t P = parts(L, u.ct);
        auto tg = [&](const char* what, Role role = kRoleNone) { return tag(1, what, u.ct, u.walk, s, role); };
        const Operand dy = tile(L, u, L.dy[size_t(s)], p_.dtype);
        const Operand x = tile(L, u, L.x1[size_t(s)], p_.dtype);
        const Operand dxs = col(core, L.dxs, u.ct, P);
        const Operand direct_x = tile(L, u, L.direct_x[size_t(s)], p_.compute_dtype);
        dma(L, hbm_tile(L, u, t_dy_), dy, DgeMode::hardware, kQueueDy, tg("load dy", kRoleLoadDy));
        dma(L, hbm_tile(L, u, t_x_), x, DgeMode::hardware, kQueueX, tg("load x"));
        if (p_.uses_mask()) {
            const Operand mask = tile(L, u, L.relu[size_t(s)], p_.compute_dtype);
            // Casting uint8 -> bf16 cannot use the hardware DGE: software DGE on GpSimd.
            dma(L, hbm_tile(L, u, t_mask_), mask, DgeMode::software, kQueueMask, tg("load mask"));
            tensor_tensor(L, AluOp::mult, dy, mask, dy, tg("dy*mask", kRoleApplyLoadedMask));
        } else if (p_.recomputes_mask()) {
            const Operand post_bn = tile(L, u, L.relu[size_t(s)], p_.compute_dtype);
            activation(L, ActFunc::copy, x, post_bn, colarg(dxs), colarg(col(core, L.true_beta, u.ct, P)),
                       tg("recompute post_bn"));
            scalar_tensor_tensor(L, post_bn, AluOp::is_gt, imm(0.0f), AluOp::mult, dy, dy, tg("dy*(post_bn>0)", kRoleApplyRecomputedMask));
        }
        // dbeta: identity activation accumulating into ACT's reduce registers; the output
        // itself is thrown away into the direct_x slot that step 5 overwrites.
        Instruction& acc = activation(L, ActFunc::copy, dy, direct_x, imm(1.0f), imm(0.0f), tg("dbeta accumulate"));
        acc.accumulate = u.first_in_ct ? Accumulate::reset_accumulate : Accumulate::accumulate;
        if (u.last_in_ct) {
            acc.acc_readout = true;
            acc.dsts.push_back(col(core, L.dbeta, u.ct, P));
        }
        // The product tile is allocated fp32-wide; a what-if bf16 product uses its first half.
        const Operand dyx = sb(core, 0, P, L.dyx, uint64_t(sp_size(L, u)) * dtype_size(p_.dyx_dtype), p_.dyx_dtype);
        tensor_tensor(L, AluOp::mult, dy, x, dyx, tg("dy*x"));
        activation(L, ActFunc::copy, dy, direct_x, colarg(dxs), imm(0.0f), tg("direct_x"));
        tensor_reduce(L, dyx, sb(core, 0, P, L.partials + uint64_t(u.tile) * 4, 4, DType::fp32), tg("yx partial"));
        if (!resident)
            dma(L, direct_x, hbm_direct_x(L, u), DgeMode::hardware, kQueueDirectXStore, tg("store direct_x"));
    }

    void emit_epilogue(const Layout& L, int ct) {
        const uint8_t core = uint8_t(L.shard.core);
        const uint32_t c = uint32_t(c_size(ct));
        const uint32_t P = parts(L, ct);
        const int64_t n_partials = L.plan.fp.n_partials;
        const Operand dbeta = col(core, L.dbeta, ct, c);
        const Operand yx = col(core, L.yx_col, ct, c);
        const Operand partials = sb(core, 0, P, L.partials, uint64_t(n_partials) * 4, DType::fp32);
        if (L.shard.rep > 1) {
            gather_bands(L, L.dbeta + uint64_t(ct) * 4, kScratchDbetaBands, dbeta, tag(1, "gather dbeta", ct));
            tensor_reduce(L, partials, scratch(L, kScratchYxPerBand, 0, P), tag(1, "reduce yx partials", ct));
            gather_bands(L, L.scratch + uint64_t(kScratchYxPerBand) * align_up(4, t_.sbuf_align), kScratchYxBands, yx,
                         tag(1, "gather yx", ct));
        } else {
            tensor_reduce(L, partials, yx, tag(1, "reduce yx partials", ct));
        }
        if (sh_.mode == ShardMode::batch) {
            exchange(L, ct, L.dbeta, 0, "exchange dbeta");
            exchange(L, ct, L.yx_col, 1, "exchange yx");
        }
        const Operand product = scratch(L, kScratchProduct, 0, c);
        const Operand dgamma = col(core, L.dgamma, ct, c);
        tensor_tensor(L, AluOp::mult, col(core, L.means, ct, c), dbeta, product, tag(1, "means*dbeta", ct));
        tensor_tensor(L, AluOp::subtract, yx, product, dgamma, tag(1, "dgamma", ct));
        tensor_tensor(L, AluOp::mult, dgamma, col(core, L.rstd, ct, c), dgamma, tag(1, "dgamma*rstd", ct));
        dma(L, dbeta, hbm_col(t_dbeta_, ct), DgeMode::hardware, kQueueColumns, tag(1, "store dbeta", ct));
        dma(L, dgamma, hbm_col(t_dgamma_, ct), DgeMode::hardware, kQueueColumns, tag(1, "store dgamma", ct));
    }

    // Batch sharding: swap a partial-sum column with the peer core and add it in.
    void exchange(const Layout& L, int ct, uint64_t col_base, int pipe, const char* what) {
        const uint8_t core = uint8_t(L.shard.core);
        const uint8_t peer = uint8_t(t_.num_cores - 1 - L.shard.core);
        const uint32_t c = uint32_t(c_size(ct));
        const Operand mine = col(core, col_base, ct, c);
        const Operand recv = scratch(L, kScratchRecv, 0, c);
        Instruction in = base(L, Engine::Pool, Opcode::SendRecv, mine, tag(1, what, ct));
        in.srcs = {mine, col(peer, col_base, ct, c)};  // same layout on both cores
        in.dsts = {recv};
        in.peer_core = peer;
        in.pipe = uint8_t(pipe);
        in.dma.dge = DgeMode::gpsimd;
        T().append(std::move(in));
        tensor_tensor(L, AluOp::add, mine, recv, mine, tag(1, what, ct));
    }

    void emit_coefficients(const Layout& L, int ct) {
        const uint8_t core = uint8_t(L.shard.core);
        const uint32_t c = uint32_t(c_size(ct));
        const float inv_n = float(1.0 / double(S().B * S().spatial()));
        auto C = [&](uint64_t base) { return col(core, base, ct, c); };
        tensor_scalar(L, C(L.dbeta), AluOp::mult, colarg(C(L.dxs)), AluOp::mult, imm(inv_n), C(L.mean_x),
                      tag(2, "mean_x", ct));
        tensor_tensor(L, AluOp::mult, C(L.rstd), C(L.rstd), C(L.intermediate), tag(2, "rstd^2", ct));
        tensor_tensor(L, AluOp::mult, C(L.intermediate), C(L.dgamma), C(L.intermediate), tag(2, "*dgamma", ct));
        tensor_scalar(L, C(L.intermediate), AluOp::mult, colarg(C(L.gamma)), AluOp::mult, imm(inv_n),
                      C(L.intermediate), tag(2, "*gamma/N", ct));
        tensor_scalar(L, C(L.intermediate), AluOp::mult, colarg(C(L.means)), AluOp::mult, imm(-1.0f),
                      C(L.neg_mean_scaled), tag(2, "neg_mean_scaled", ct));
        broadcast_bands(L, L.mean_x, ct, tag(2, "broadcast mean_x", ct));
        broadcast_bands(L, L.intermediate, ct, tag(2, "broadcast intermediate", ct));
        broadcast_bands(L, L.neg_mean_scaled, ct, tag(2, "broadcast neg_mean_scaled", ct));
    }

    void emit_unit2(const Layout& L, const Unit& u, bool resident) {
        const int s = u.walk % L.plan.interleave;
        const uint8_t core = uint8_t(L.shard.core);
        const uint32_t P = parts(L, u.ct);
        auto tg = [&](const char* what) { return tag(2, what, u.ct, u.walk, s); };
        const Operand x = tile(L, u, L.x2[size_t(s)], p_.dtype);
        const Operand direct_x = tile(L, u, L.direct_x[size_t(s)], p_.compute_dtype);
        const Operand var_x = tile(L, u, L.var_x, p_.compute_dtype);
        const Operand dx = tile(L, u, L.dx[size_t(s)], p_.dtype);
        dma(L, hbm_tile(L, u, t_x_), x, DgeMode::hardware, kQueueX, tg("load x"));
        if (!resident)
            dma(L, hbm_direct_x(L, u), direct_x, DgeMode::hardware, kQueueDirectXLoad, tg("load direct_x"));
        activation(L, ActFunc::copy, x, var_x, colarg(col(core, L.intermediate, u.ct, P)),
                   colarg(col(core, L.neg_mean_scaled, u.ct, P)), tg("var_x"));
        scalar_tensor_tensor(L, direct_x, AluOp::subtract, colarg(col(core, L.mean_x, u.ct, P)), AluOp::subtract,
                             var_x, dx, tg("dx"));
        dma(L, dx, hbm_tile(L, u, t_dx_), DgeMode::hardware, kQueueDxStore, tg("store dx"));
    }

    // ---- description for reports -------------------------------------------------------
    // "search" (the kernel's own choice), "explicit" (f_tile and interleave given), or which were
    // given and which searched: "given interleave; searched f_tile".
    static std::string memory_source_text(const MemoryPlan& plan) {
        if (plan.all_searched()) return "search";
        if (plan.all_given()) return "explicit";
        std::string given, searched;
        for (auto [name, g] : {std::pair{"f_tile", plan.f_tile_given}, {"interleave", plan.interleave_given}}) {
            std::string& list = g ? given : searched;
            list += (list.empty() ? "" : ", ") + std::string(name);
        }
        if (plan.residency_given) given += (given.empty() ? "" : ", ") + std::string("direct_x_residency");
        return "given " + given + "; searched " + searched;
    }

    void describe() {
        json& j = out_.info;
        const Layout* first = nullptr;
        for (const auto& L : layouts_)
            if (!L.shard.empty()) {
                first = &L;
                break;
            }
        if (first) {
            json m;
            m["f_tile"] = first->plan.fp.f_tile;
            m["interleave"] = first->plan.interleave;
            m["n_sp_tiles"] = first->plan.fp.n_sp_tiles;
            m["replication"] = first->shard.rep;
            m["direct_x_residency"] = first->plan.residency;
            m["source"] = memory_source_text(first->plan);
            m["budget_bytes"] = first->plan.budget;
            j["memory_config"] = m;
            KernelSummary& k = out_.summary;
            k.set("f_tile", int64_t(first->plan.fp.f_tile));
            k.set("interleave", int64_t(first->plan.interleave));
            k.set("direct_x_residency", first->plan.residency);
            k.set("replication", int64_t(first->shard.rep));
            k.set("memory_source", std::string(first->plan.all_searched() ? "search" : first->plan.all_given() ? "given" : "partial"));
            k.set("n_sp_tiles", int64_t(first->plan.fp.n_sp_tiles));
        }
        out_.summary.set("sharding", std::string(shard_mode_name(sh_.mode)));
        json s;
        s["mode"] = shard_mode_name(sh_.mode);
        s["n_c_tiles"] = sh_.n_c_tiles;
        json cores = json::array();
        for (const auto& L : layouts_) {
            json c;
            c["core"] = L.shard.core;
            c["channel_tiles"] = {L.shard.ct_lo, L.shard.ct_hi};
            c["batches"] = {L.shard.b_lo, L.shard.b_hi};
            c["replication"] = L.shard.rep;
            c["units"] = L.walk.size();
            if (!L.shard.empty()) {
                c["f_tile"] = L.plan.fp.f_tile;
                c["interleave"] = L.plan.interleave;
                c["n_partials"] = L.plan.fp.n_partials;
                c["sbuf_phase1_bytes"] = L.live1;
                c["sbuf_phase2_bytes"] = L.live2;
            }
            cores.push_back(c);
        }
        s["cores"] = cores;
        j["sharding"] = s;
        if (first) j["sbuf_bytes"] = {{"phase1", first->live1}, {"phase2", first->live2}, {"budget", first->plan.budget}};
    }
};

}  // namespace

GeneratedKernel generate(const Params& params, const KernelTarget& target) {
    return Generator(params, target).run();
}

}  // namespace bnsim::bn
