#include "trace/trace_image.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "trace/fnv1a64.h"

namespace bnsim {

namespace {

// "bnsimTI" and the format's version: a change to what is written below bumps the version.
constexpr char kMagic[8] = {'b', 'n', 's', 'i', 'm', 'T', 'I', '\0'};
constexpr uint32_t kVersion = 1;
// magic, version, checksum of what follows
constexpr size_t kHeaderBytes = sizeof kMagic + sizeof(uint32_t) + sizeof(uint64_t);

class Writer {
public:
    template <class T>
    void put(T v) {
        static_assert(std::is_trivially_copyable_v<T>);
        out_.append(reinterpret_cast<const char*>(&v), sizeof v);
    }
    void text(std::string_view s) {
        put(uint64_t(s.size()));
        out_.append(s.data(), s.size());
    }
    std::string& bytes() { return out_; }

private:
    std::string out_;
};

struct Bad {};  // not an intact image: read_trace_image's nullopt

class Reader {
public:
    explicit Reader(std::string_view in) : in_(in) {}
    template <class T>
    T get() {
        static_assert(std::is_trivially_copyable_v<T>);
        need(sizeof(T));
        T v;
        std::memcpy(&v, in_.data() + at_, sizeof v);
        at_ += sizeof v;
        return v;
    }
    // A count of items each at least `min_bytes` long: no more than the bytes left can hold.
    uint64_t count(uint64_t min_bytes) {
        const uint64_t n = get<uint64_t>();
        if (n > (in_.size() - at_) / std::max<uint64_t>(min_bytes, 1)) throw Bad{};
        return n;
    }
    std::string text() {
        const uint64_t n = count(1);
        std::string s(in_.substr(at_, n));
        at_ += n;
        return s;
    }
    bool done() const { return at_ == in_.size(); }

private:
    void need(size_t n) const {
        if (in_.size() - at_ < n) throw Bad{};
    }
    std::string_view in_;
    size_t at_ = 0;
};

// An enum read back: its value must name one of its `count` members.
template <class E>
E member(Reader& r, int count) {
    const auto v = r.get<std::underlying_type_t<E>>();
    if (uint64_t(v) >= uint64_t(count)) throw Bad{};
    return E(v);
}

void put_region(Writer& w, const Region& g) {
    w.put(g.space);
    w.put(g.core);
    w.put(g.buffer);
    w.put(g.row_lo);
    w.put(g.row_hi);
    w.put(g.byte_lo);
    w.put(g.byte_hi);
}

Region get_region(Reader& r, const Trace& t) {
    Region g;
    g.space = member<Space>(r, 4);
    g.core = r.get<uint8_t>();
    g.buffer = r.get<uint32_t>();
    g.row_lo = r.get<uint32_t>();
    g.row_hi = r.get<uint32_t>();
    g.byte_lo = r.get<uint64_t>();
    g.byte_hi = r.get<uint64_t>();
    if (int(g.core) >= t.num_cores) throw Bad{};
    if (g.space == Space::Hbm && g.buffer >= t.tensors().size()) throw Bad{};
    return g;
}

void put_operand(Writer& w, const Operand& o) {
    put_region(w, o.region);
    w.put(o.dtype);
}

Operand get_operand(Reader& r, const Trace& t) {
    Operand o;
    o.region = get_region(r, t);
    o.dtype = member<DType>(r, 5);
    if (dtype_size(o.dtype) == 0) throw Bad{};
    return o;
}

// Instruction strings (a tag's role and source line) as indices into a table of distinct ones;
// index 0 is "no string" (a null source).
class StringTable {
public:
    uint32_t index(const char* s) {
        if (!s) return 0;
        auto [it, added] = ids_.emplace(s, uint32_t(texts_.size() + 1));
        if (added) texts_.push_back(s);
        return it->second;
    }
    const std::vector<std::string>& texts() const { return texts_; }

private:
    std::unordered_map<std::string, uint32_t> ids_;
    std::vector<std::string> texts_;
};

constexpr size_t kMinRegionBytes = 1 + 1 + 4 + 4 + 4 + 8 + 8;
constexpr size_t kMinInstructionBytes = 64;  // well below what put_instruction writes

}  // namespace

std::string trace_image(const TraceFile& tf) {
    const Trace& t = tf.trace;
    StringTable strings;
    for (const auto& in : t.instructions()) {
        strings.index(in.tag.what);
        strings.index(in.tag.source);
    }
    Writer w;
    w.text(t.kernel);
    w.put(int32_t(t.num_cores));
    w.text(tf.info.dump());
    w.put(uint64_t(strings.texts().size()));
    for (const auto& s : strings.texts()) w.text(s);
    w.put(uint64_t(t.tensors().size()));
    for (const auto& h : t.tensors()) {
        w.text(h.name);
        w.put(h.dtype);
        w.put(uint64_t(h.shape.size()));
        for (int64_t d : h.shape) w.put(d);
        w.put(h.rows);
        w.put(h.row_bytes);
        w.put(h.base_addr);
        w.put(int32_t(h.owner_core));
        w.put(uint8_t(h.is_input));
        w.put(uint8_t(h.is_output));
    }
    w.put(uint64_t(t.size()));
    for (const auto& in : t.instructions()) {
        w.put(in.core);
        w.put(in.engine);
        w.put(in.opcode);
        w.put(in.act_func);
        w.put(in.partitions);
        w.put(in.alu[0]);
        w.put(in.alu[1]);
        w.put(in.accumulate);
        w.put(uint8_t(in.acc_readout));
        w.put(uint8_t(in.psum_accumulate));
        w.put(in.free_elems);
        w.put(in.dma.dge);
        w.put(in.dma.queue);
        w.put(in.peer_core);
        w.put(in.pipe);
        for (const auto& s : in.scalar) {
            w.put(s.imm);
            w.put(uint8_t(s.column.has_value()));
            if (s.column) put_operand(w, *s.column);
        }
        w.put(strings.index(in.tag.what));
        w.put(strings.index(in.tag.source));
        w.put(in.tag.unit);
        w.put(in.tag.slot);
        w.put(in.tag.ctile);
        w.put(in.tag.role);
        w.put(in.tag.phase);
        w.put(uint64_t(in.srcs.size()));
        for (const auto& o : in.srcs) put_operand(w, o);
        w.put(uint64_t(in.dsts.size()));
        for (const auto& o : in.dsts) put_operand(w, o);
        w.put(uint64_t(in.deps.size()));
        for (uint32_t d : in.deps) w.put(d);
    }
    std::string body = std::move(w.bytes());
    std::string out(kMagic, sizeof kMagic);
    const uint32_t version = kVersion;
    const uint64_t sum = fnv1a64(body);
    out.append(reinterpret_cast<const char*>(&version), sizeof version);
    out.append(reinterpret_cast<const char*>(&sum), sizeof sum);
    out += body;
    return out;
}

std::optional<TraceFile> read_trace_image(std::string_view bytes) {
    if (bytes.size() < kHeaderBytes || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) return std::nullopt;
    uint32_t version = 0;
    uint64_t sum = 0;
    std::memcpy(&version, bytes.data() + sizeof kMagic, sizeof version);
    std::memcpy(&sum, bytes.data() + sizeof kMagic + sizeof version, sizeof sum);
    const std::string_view body = bytes.substr(kHeaderBytes);
    if (version != kVersion || fnv1a64(body) != sum) return std::nullopt;
    try {
        Reader r(body);
        TraceFile tf;
        Trace& t = tf.trace;
        t.kernel = r.text();
        t.num_cores = r.get<int32_t>();
        if (t.num_cores < 1 || t.num_cores > 255) return std::nullopt;
        tf.info = nlohmann::ordered_json::parse(r.text(), nullptr, false);
        if (!tf.info.is_object()) return std::nullopt;
        std::vector<const char*> strings{nullptr};
        for (uint64_t n = r.count(8); n > 0; --n) strings.push_back(t.keep_string(r.text()));
        auto string_at = [&](uint32_t i) {
            if (i >= strings.size()) throw Bad{};
            return strings[i];
        };
        for (uint64_t n = r.count(8); n > 0; --n) {
            HbmTensor h;
            h.name = r.text();
            h.dtype = member<DType>(r, 5);
            for (uint64_t k = r.count(8); k > 0; --k) h.shape.push_back(r.get<int64_t>());
            h.rows = r.get<uint64_t>();
            h.row_bytes = r.get<uint64_t>();
            h.base_addr = r.get<uint64_t>();
            h.owner_core = r.get<int32_t>();
            h.is_input = r.get<uint8_t>() != 0;
            h.is_output = r.get<uint8_t>() != 0;
            if (h.owner_core < -1 || h.owner_core >= t.num_cores) return std::nullopt;
            t.add_placed_tensor(std::move(h));
        }
        const uint64_t count = r.count(kMinInstructionBytes);
        if (count > trace_limit()) return std::nullopt;
        t.reserve(size_t(count));
        for (uint64_t i = 0; i < count; ++i) {
            Instruction in;
            in.core = r.get<uint8_t>();
            if (int(in.core) >= t.num_cores) return std::nullopt;
            in.engine = member<Engine>(r, kNumEngines);
            in.opcode = member<Opcode>(r, kNumOpcodes);
            in.act_func = member<ActFunc>(r, kNumActFuncs);
            in.partitions = r.get<uint32_t>();
            in.alu[0] = member<AluOp>(r, kNumAluOps);
            in.alu[1] = member<AluOp>(r, kNumAluOps);
            in.accumulate = member<Accumulate>(r, 3);
            in.acc_readout = r.get<uint8_t>() != 0;
            in.psum_accumulate = r.get<uint8_t>() != 0;
            in.free_elems = r.get<uint64_t>();
            in.dma.dge = member<DgeMode>(r, kNumDgeModes);
            in.dma.queue = r.get<uint16_t>();
            in.peer_core = r.get<uint8_t>();
            in.pipe = r.get<uint8_t>();
            for (auto& s : in.scalar) {
                s.imm = r.get<float>();
                if (r.get<uint8_t>()) s.column = get_operand(r, t);
            }
            in.tag.what = string_at(r.get<uint32_t>());
            if (!in.tag.what) return std::nullopt;
            in.tag.source = string_at(r.get<uint32_t>());
            in.tag.unit = r.get<int32_t>();
            in.tag.slot = r.get<int16_t>();
            in.tag.ctile = r.get<int16_t>();
            in.tag.role = r.get<uint16_t>();
            in.tag.phase = r.get<int8_t>();
            for (auto* list : {&in.srcs, &in.dsts}) {
                const uint64_t n = r.count(kMinRegionBytes);
                list->reserve(size_t(n));
                for (uint64_t k = 0; k < n; ++k) list->push_back(get_operand(r, t));
            }
            const uint64_t deps = r.count(sizeof(uint32_t));
            in.deps.reserve(size_t(deps));
            for (uint64_t k = 0; k < deps; ++k) {
                const uint32_t d = r.get<uint32_t>();
                if (d >= i) return std::nullopt;  // an edge points back in program order
                in.deps.push_back(d);
            }
            t.append(std::move(in));
        }
        if (!r.done()) return std::nullopt;
        return tf;
    } catch (const Bad&) {
        return std::nullopt;
    } catch (const TraceTooLarge&) {
        return std::nullopt;
    }
}

}  // namespace bnsim
