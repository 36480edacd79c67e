#include "trace/trace_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <vector>

#include "trace/trace_json.h"

namespace bnsim {
namespace {

using json = nlohmann::ordered_json;

// A record is a few levels deep (instruction > reads > operand > bytes); anything deeper is not
// a trace, and refusing it keeps the parser's work bounded by the line's length.
constexpr int kMaxDepth = 8;

// One line of the file being read: every error names the file and the line.
class Line {
public:
    Line(const std::string& file, uint64_t number) : where_(file + ":" + std::to_string(number) + ": ") {}

    [[noreturn]] void fail(const std::string& key, const std::string& expected) const {
        throw TraceFileError(where_ + (key.empty() ? "" : key + ": ") + "expected " + expected);
    }

    json parse(const std::string& text) const {
        // Keys seen in each open object, to refuse a key given twice (the JSON library would
        // keep the last); the depth to refuse nesting no trace has.
        // (Objects have a dozen keys at most: a flat list per open object beats a set.)
        std::vector<std::vector<std::string>> keys;
        size_t open = 0;
        auto cb = [&](int depth, json::parse_event_t ev, json& parsed) {
            if (depth > kMaxDepth) fail("", "a record at most " + std::to_string(kMaxDepth) + " levels deep");
            if (ev == json::parse_event_t::object_start) {
                if (keys.size() <= open) keys.emplace_back();
                keys[open++].clear();
            } else if (ev == json::parse_event_t::object_end) {
                --open;
            } else if (ev == json::parse_event_t::key && open > 0) {
                const std::string& k = parsed.get_ref<const std::string&>();
                auto& seen = keys[open - 1];
                if (std::find(seen.begin(), seen.end(), k) != seen.end())
                    fail(k, "each key once in an object (it appears twice)");
                seen.push_back(k);
            }
            return true;
        };
        try {
            json j = json::parse(text, cb, true, false);
            if (!j.is_object()) fail("", "one JSON object per line");
            return j;
        } catch (const json::exception& e) {
            // The library's message says where; its prefix ("[json.exception...]") is not for users.
            std::string m = e.what();
            const size_t close = m.find("] ");
            if (close != std::string::npos) m = m.substr(close + 2);
            fail("", "one JSON object per line (" + m + ")");
        }
    }

    const json& get(const json& o, const std::string& key, const std::string& expected) const {
        auto it = o.find(key);
        if (it == o.end()) fail(key, expected + " (missing)");
        return *it;
    }
    uint64_t uint(const json& o, const std::string& key, uint64_t max) const {
        const json& v = get(o, key, "an integer");
        return uint_value(v, key, max);
    }
    uint64_t uint_value(const json& v, const std::string& key, uint64_t max) const {
        if (!v.is_number_integer() || (v.is_number_integer() && !v.is_number_unsigned() && v.get<int64_t>() < 0) ||
            v.get<uint64_t>() > max)
            fail(key, "an integer from 0 to " + std::to_string(max));
        return v.get<uint64_t>();
    }
    int64_t sint(const json& o, const std::string& key, int64_t lo, int64_t hi, int64_t dflt) const {
        auto it = o.find(key);
        if (it == o.end()) return dflt;
        if (!it->is_number_integer() || (it->is_number_unsigned() && it->get<uint64_t>() > uint64_t(hi)) ||
            it->get<int64_t>() < lo || it->get<int64_t>() > hi)
            fail(key, "an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
        return it->get<int64_t>();
    }
    std::string str(const json& o, const std::string& key) const {
        const json& v = get(o, key, "a string");
        if (!v.is_string()) fail(key, "a string");
        return v.get<std::string>();
    }
    bool boolean(const json& o, const std::string& key, bool dflt) const {
        auto it = o.find(key);
        if (it == o.end()) return dflt;
        if (!it->is_boolean()) fail(key, "true or false");
        return it->get<bool>();
    }
    double number(const json& v, const std::string& key) const {
        if (!v.is_number() || !std::isfinite(v.get<double>())) fail(key, "a finite number");
        return v.get<double>();
    }
    // [lo, hi) with lo < hi <= max.
    std::pair<uint64_t, uint64_t> range(const json& o, const std::string& key, uint64_t max) const {
        const json& v = get(o, key, "[lo, hi]");
        if (!v.is_array() || v.size() != 2) fail(key, "[lo, hi], two integers");
        const uint64_t lo = uint_value(v[0], key, max), hi = uint_value(v[1], key, max);
        if (lo >= hi) fail(key, "[lo, hi] with lo < hi, got [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
        return {lo, hi};
    }
    void only(const json& o, const std::string& what, std::initializer_list<const char*> allowed) const {
        for (const auto& [k, v] : o.items()) {
            bool ok = false;
            for (const char* a : allowed) ok = ok || k == a;
            if (!ok) {
                std::string names;
                for (const char* a : allowed) names += std::string(names.empty() ? "" : ", ") + a;
                fail(k, "a key of " + what + " (" + names + "); this one is unknown");
            }
        }
    }
    template <class T, class F>
    T name(const json& o, const std::string& key, F from, const std::string& kinds) const {
        const std::string s = str(o, key);
        auto v = from(s);
        if (!v) fail(key, kinds + ", got '" + s + "'");
        return *v;
    }

private:
    std::string where_;
};

class Reader {
public:
    Reader(std::istream& in, std::string name) : in_(in), name_(std::move(name)) {}

    TraceFile read() {
        std::string text;
        if (!next(text)) throw TraceFileError(name_ + ": empty file; expected a trace file (docs/trace-format.md)");
        header(text);
        uint64_t n = 0;
        while (next(text)) {
            if (n == expected_) Line(name_, line_).fail("", "no more than the header's " + std::to_string(expected_) + " instructions");
            instruction(text, n++);
        }
        if (n != expected_)
            throw TraceFileError(name_ + ": " + std::to_string(n) + " instructions; expected the header's " +
                                 std::to_string(expected_) + " (a truncated file?)");
        return std::move(out_);
    }

private:
    bool next(std::string& text) {
        while (true) {
            // A bounded getline: a line longer than any record is refused before it is kept.
            if (buf_.empty()) buf_.resize(kMaxTraceLineBytes + 2);
            in_.getline(buf_.data(), std::streamsize(buf_.size()));
            const std::streamsize got = in_.gcount();
            if (got == 0 && (in_.eof() || in_.bad())) return false;
            if (in_.fail() && !in_.eof()) {
                // getline filled the buffer without meeting the line's end.
                Line(name_, line_ + 1).fail("", "a line of at most " + std::to_string(kMaxTraceLineBytes) + " bytes");
            }
            in_.clear(in_.rdstate() & std::ios::eofbit);
            ++line_;
            text.assign(buf_.data(), size_t(got) - (in_.eof() ? 0 : 1));
            if (text.size() > kMaxTraceLineBytes)
                Line(name_, line_).fail("", "a line of at most " + std::to_string(kMaxTraceLineBytes) + " bytes");
            if (line_ == 1 && text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.erase(0, 3);
            if (text.find_first_not_of(" \t\r") != std::string::npos) return true;
            if (in_.eof()) return false;
        }
    }

    void header(const std::string& text) {
        const Line L(name_, line_);
        const json h = L.parse(text);
        const std::string format = h.contains("format") && h["format"].is_string() ? h["format"].get<std::string>() : "";
        if (format != kTraceFormat) L.fail("format", std::string("\"") + kTraceFormat + "\" (the first line is the header)");
        const uint64_t version = L.uint(h, "version", 1000);
        if (version != uint64_t(kTraceFormatVersion))
            L.fail("version", std::to_string(kTraceFormatVersion) + " (this bnsim reads version " +
                                  std::to_string(kTraceFormatVersion) + "), got " + std::to_string(version));
        L.only(h, "the header", {"format", "version", "kernel", "cores", "tensors", "instructions", "provenance", "info"});
        Trace& t = out_.trace;
        t.kernel = L.str(h, "kernel");
        if (t.kernel.empty()) L.fail("kernel", "a kernel name");
        t.num_cores = int(L.uint(h, "cores", 2));
        if (t.num_cores < 1) L.fail("cores", "1 or 2");
        expected_ = L.uint(h, "instructions", kMaxTraceInstructions);
        if (h.contains("info")) {
            if (!h["info"].is_object()) L.fail("info", "an object");
            out_.info = h["info"];
        }
        const json& ts = L.get(h, "tensors", "a list of HBM tensors");
        if (!ts.is_array() || ts.size() > kMaxTraceTensors)
            L.fail("tensors", "a list of at most " + std::to_string(kMaxTraceTensors) + " HBM tensors");
        uint64_t end = 0;
        for (size_t i = 0; i < ts.size(); ++i) {
            const json& o = ts[i];
            const std::string key = "tensors[" + std::to_string(i) + "]";
            if (!o.is_object()) L.fail(key, "an object");
            L.only(o, key, {"id", "name", "dtype", "shape", "rows", "row_bytes", "addr", "owner_core", "input", "output"});
            HbmTensor x;
            if (L.uint(o, "id", kMaxTraceTensors) != i) L.fail(key + ".id", std::to_string(i) + " (tensors in id order)");
            x.name = L.str(o, "name");
            if (x.name.empty()) L.fail(key + ".name", "a tensor name");
            x.dtype = L.name<DType>(o, "dtype", dtype_from_name, "a dtype (bfloat16, float32, float16, uint8, int32)");
            const json& shape = L.get(o, "shape", "a list of dimensions");
            if (!shape.is_array() || shape.size() > 8) L.fail(key + ".shape", "a list of at most 8 dimensions");
            for (const auto& d : shape) x.shape.push_back(int64_t(L.uint_value(d, key + ".shape", uint64_t(1) << 40)));
            x.rows = L.uint(o, "rows", uint64_t(1) << 31);
            x.row_bytes = L.uint(o, "row_bytes", uint64_t(1) << 40);
            if (x.rows == 0 || x.row_bytes == 0) L.fail(key, "rows and row_bytes of at least 1");
            if (x.row_bytes % uint64_t(dtype_size(x.dtype)))
                L.fail(key + ".row_bytes", "a multiple of the dtype's " + std::to_string(dtype_size(x.dtype)) + " bytes");
            if (x.rows > (uint64_t(1) << 48) / x.row_bytes) L.fail(key, "a tensor of at most 2^48 bytes");
            x.base_addr = L.uint(o, "addr", uint64_t(1) << 52);
            if (x.base_addr < end) L.fail(key + ".addr", "tensors in address order, not overlapping");
            end = x.base_addr + x.bytes();
            x.owner_core = int(L.sint(o, "owner_core", 0, t.num_cores - 1, -1));
            x.is_input = L.boolean(o, "input", false);
            x.is_output = L.boolean(o, "output", false);
            for (const auto& y : t.tensors())
                if (y.name == x.name && (y.owner_core == x.owner_core || y.owner_core < 0 || x.owner_core < 0))
                    L.fail(key + ".name", "a name no other tensor of the same core has ('" + x.name + "' again)");
            t.add_placed_tensor(std::move(x));
        }
        t.reserve(size_t(std::min<uint64_t>(expected_, uint64_t(1) << 20)));
    }

    Operand operand(const Line& L, const json& o, const std::string& key) const {
        if (!o.is_object()) L.fail(key, "an operand object");
        const Space sp = L.name<Space>(o, "space", space_from_name, "a memory space (sbuf, psum, hbm, accreg)");
        Operand op;
        op.dtype = L.name<DType>(o, "dtype", dtype_from_name, "a dtype (bfloat16, float32, float16, uint8, int32)");
        Region& r = op.region;
        r.space = sp;
        r.core = uint8_t(L.uint(o, "core", uint64_t(out_.trace.num_cores - 1)));
        if (sp == Space::Hbm) {
            L.only(o, key, {"space", "tensor", "core", "rows", "bytes", "dtype"});
            const std::string name = L.str(o, "tensor");
            const HbmTensor* t = out_.trace.find_tensor(name, r.core);
            if (!t) t = out_.trace.find_tensor(name, -1);
            if (!t) L.fail(key + ".tensor", "a tensor of the header, got '" + name + "'");
            r.buffer = t->id;
            const auto rows = L.range(o, "rows", t->rows);
            const auto bytes = L.range(o, "bytes", t->row_bytes);
            r.row_lo = uint32_t(rows.first), r.row_hi = uint32_t(rows.second);
            r.byte_lo = bytes.first, r.byte_hi = bytes.second;
        } else {
            L.only(o, key, {"space", "core", "partitions", "bytes", "dtype"});
            const auto parts = L.range(o, "partitions", 1u << 16);
            const auto bytes = L.range(o, "bytes", uint64_t(1) << 32);
            r.row_lo = uint32_t(parts.first), r.row_hi = uint32_t(parts.second);
            r.byte_lo = bytes.first, r.byte_hi = bytes.second;
        }
        if (r.bytes_per_row() % uint64_t(dtype_size(op.dtype)))
            L.fail(key + ".bytes", std::string("a multiple of ") + dtype_name(op.dtype) + "'s " +
                                       std::to_string(dtype_size(op.dtype)) + " bytes per row");
        return op;
    }

    OperandList operands(const Line& L, const json& o, const char* key, size_t lo, size_t hi) const {
        const json& v = L.get(o, key, "a list of operands");
        if (!v.is_array() || v.size() < lo || v.size() > hi)
            L.fail(key, "a list of " + (lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi)) +
                            " operands for this opcode");
        OperandList out;
        for (size_t i = 0; i < v.size(); ++i) out.push_back(operand(L, v[i], std::string(key) + "[" + std::to_string(i) + "]"));
        return out;
    }

    ScalarArg scalar(const Line& L, const json& o, const char* key) const {
        ScalarArg s;
        auto it = o.find(key);
        if (it == o.end()) return s;
        if (it->is_object()) s.column = operand(L, *it, key);
        else s.imm = float(L.number(*it, key));
        return s;
    }

    void instruction(const std::string& text, uint64_t index) {
        const Line L(name_, line_);
        const json o = L.parse(text);
        Instruction in;
        if (L.uint(o, "id", kMaxTraceInstructions) != index) L.fail("id", std::to_string(index) + " (instructions in id order)");
        in.core = uint8_t(L.uint(o, "core", uint64_t(out_.trace.num_cores - 1)));
        in.engine = L.name<Engine>(o, "engine", engine_from_name, "an engine (sync, act, dve, pool, pe)");
        in.opcode = L.name<Opcode>(o, "opcode", opcode_from_name, "an opcode (docs/trace-format.md)");
        in.partitions = uint32_t(L.uint(o, "partitions", 1u << 16));
        in.free_elems = L.uint(o, "free", uint64_t(1) << 40);
        auto alu = [&](const char* k) { return L.name<AluOp>(o, k, alu_from_name, "an ALU op (docs/trace-format.md)"); };
        const Opcode op = in.opcode;
        // The operand counts of instruction.h's table, and the keys each opcode may carry.
        size_t r_lo = 1, r_hi = 1, w_lo = 1, w_hi = 1;
        switch (op) {
        case Opcode::DmaCopy:
            L.only(o, "a dma_copy", {"id", "core", "engine", "opcode", "partitions", "free", "reads", "writes", "dge", "queue", "tag", "deps", "cost_row"});
            in.dma.dge = L.name<DgeMode>(o, "dge", dge_from_name, "a DGE mode (hardware, software, gpsimd, none)");
            in.dma.queue = uint16_t(L.uint(o, "queue", 255));
            break;
        case Opcode::Activation: {
            L.only(o, "an activation", {"id", "core", "engine", "opcode", "partitions", "free", "reads", "writes", "func", "scale", "bias", "accumulate", "readout", "tag", "deps", "cost_row"});
            in.act_func = L.name<ActFunc>(o, "func", act_func_from_name, "an activation function (docs/trace-format.md)");
            in.scalar[0] = scalar(L, o, "scale");
            in.scalar[1] = scalar(L, o, "bias");
            if (o.contains("accumulate")) {
                const std::string a = L.str(o, "accumulate");
                if (a != "reset" && a != "add") L.fail("accumulate", "\"reset\" or \"add\"");
                in.accumulate = a == "reset" ? Accumulate::reset_accumulate : Accumulate::accumulate;
            }
            in.acc_readout = L.boolean(o, "readout", false);
            w_hi = in.acc_readout ? 2 : 1;
            w_lo = w_hi;
            break;
        }
        case Opcode::TensorScalar:
            L.only(o, "a tensor_scalar", {"id", "core", "engine", "opcode", "partitions", "free", "reads", "writes", "op0", "scalar0", "op1", "scalar1", "tag", "deps", "cost_row"});
            in.alu[0] = alu("op0");
            in.scalar[0] = scalar(L, o, "scalar0");
            in.alu[1] = o.contains("op1") ? alu("op1") : AluOp::bypass;
            in.scalar[1] = scalar(L, o, "scalar1");
            break;
        case Opcode::ScalarTensorTensor:
            L.only(o, "a scalar_tensor_tensor", {"id", "core", "engine", "opcode", "partitions", "free", "reads", "writes", "op0", "scalar", "op1", "tag", "deps", "cost_row"});
            in.alu[0] = alu("op0");
            in.scalar[0] = scalar(L, o, "scalar");
            in.alu[1] = alu("op1");
            r_lo = r_hi = 2;
            break;
        case Opcode::TensorTensor:
        case Opcode::TensorReduce:
            L.only(o, "a tensor_tensor or tensor_reduce", {"id", "core", "engine", "opcode", "partitions", "free", "reads", "writes", "op", "tag", "deps", "cost_row"});
            in.alu[0] = alu("op");
            if (op == Opcode::TensorTensor) r_lo = r_hi = 2;
            break;
        case Opcode::SendRecv:
            L.only(o, "a sendrecv", {"id", "core", "engine", "opcode", "partitions", "free", "reads", "writes", "peer", "pipe", "dge", "tag", "deps", "cost_row"});
            in.peer_core = uint8_t(L.uint(o, "peer", uint64_t(out_.trace.num_cores - 1)));
            in.pipe = uint8_t(L.uint(o, "pipe", 255));
            in.dma.dge = L.name<DgeMode>(o, "dge", dge_from_name, "a DGE mode (hardware, software, gpsimd, none)");
            r_lo = r_hi = 2;
            break;
        case Opcode::Memset:
            L.only(o, "a memset", {"id", "core", "engine", "opcode", "partitions", "free", "reads", "writes", "value", "tag", "deps", "cost_row"});
            in.scalar[0].imm = float(L.number(L.get(o, "value", "a number"), "value"));
            r_lo = r_hi = 0;
            break;
        case Opcode::Iota:
            r_lo = r_hi = 0;
            [[fallthrough]];
        case Opcode::TensorCopy:
        case Opcode::NcStreamShuffle:
        case Opcode::Reciprocal:
        case Opcode::NcTranspose:
            L.only(o, "this opcode", {"id", "core", "engine", "opcode", "partitions", "free", "reads", "writes", "tag", "deps", "cost_row"});
            break;
        case Opcode::NcMatmul:
            L.only(o, "an nc_matmul", {"id", "core", "engine", "opcode", "partitions", "free", "reads", "writes", "accumulate", "tag", "deps", "cost_row"});
            in.psum_accumulate = L.boolean(o, "accumulate", false);
            r_lo = r_hi = 2;
            break;
        }
        if ((op == Opcode::NcMatmul && in.engine != Engine::Pe) ||
            (op == Opcode::NcTranspose && in.engine != Engine::Pe && in.engine != Engine::Dve))
            L.fail("engine", std::string(op == Opcode::NcMatmul ? "pe for nc_matmul" : "pe or dve for nc_transpose"));
        if (op == Opcode::Iota && in.engine != Engine::Pool) L.fail("engine", "pool for iota (GpSimd)");
        in.srcs = operands(L, o, "reads", r_lo, r_hi);
        in.dsts = operands(L, o, "writes", w_lo, w_hi);
        for (const auto& x : in.srcs)
            if (x.region.space != Space::Hbm && x.region.core != in.core && op != Opcode::SendRecv)
                L.fail("reads", "operands on the instruction's own core " + std::to_string(in.core));
        if (op == Opcode::NcMatmul && in.dsts[0].region.space != Space::Psum) L.fail("writes", "a PSUM output for nc_matmul");
        const json& tag = L.get(o, "tag", "the instruction's tag");
        if (!tag.is_object()) L.fail("tag", "an object");
        L.only(tag, "tag", {"phase", "unit", "slot", "ctile", "what", "nki_source_location"});
        in.tag.phase = int8_t(L.sint(tag, "phase", 0, 2, 0));
        in.tag.unit = int32_t(L.sint(tag, "unit", -1, INT32_MAX, -1));
        in.tag.slot = int16_t(L.sint(tag, "slot", -1, INT16_MAX, -1));
        in.tag.ctile = int16_t(L.sint(tag, "ctile", -1, INT16_MAX, -1));
        Trace& t = out_.trace;
        if (tag.contains("what")) in.tag.what = keep(L, tag, "what");
        if (tag.contains("nki_source_location")) in.tag.source = keep(L, tag, "nki_source_location");
        t.append(std::move(in));
    }

    // Tag texts repeat (one per loop body line): each distinct one is kept once.
    const char* keep(const Line& L, const json& tag, const char* key) {
        const std::string s = L.str(tag, key);
        auto it = kept_.find(s);
        if (it != kept_.end()) return it->second;
        const char* p = out_.trace.keep_string(s);
        kept_.emplace(s, p);
        return p;
    }

    std::istream& in_;
    std::vector<char> buf_;
    std::string name_;
    uint64_t line_ = 0;
    uint64_t expected_ = 0;
    TraceFile out_;
    std::map<std::string, const char*> kept_;
};

}  // namespace

TraceFile read_trace_stream(std::istream& in, const std::string& name) { return Reader(in, name).read(); }

TraceFile read_trace_file(const std::string& path) {
    const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) throw TraceFileError(path + ": cannot open (" + std::strerror(errno) + "); expected a trace file");
    struct stat st;
    const bool ok = fstat(fd, &st) == 0;
    close(fd);
    if (!ok || !S_ISREG(st.st_mode)) {
        const char* kind = S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO" : "not a regular file";
        throw TraceFileError(path + ": is " + kind + "; expected a trace file");
    }
    if (uint64_t(st.st_size) > kMaxTraceFileBytes)
        throw TraceFileError(path + ": " + std::to_string(st.st_size) + " bytes; expected a trace file of at most " +
                             std::to_string(kMaxTraceFileBytes) + " bytes");
    std::ifstream f(path, std::ios::binary);
    if (!f) throw TraceFileError(path + ": cannot open; expected a trace file");
    return read_trace_stream(f, path);
}

}  // namespace bnsim
