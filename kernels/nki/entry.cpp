// The `nki` kernel: any NKI kernel, traced from its Python source by the frontend
// (kernels/nki/frontend) in a child process. A run config names the file, the function and its
// arguments, e.g.
//   kernel: nki
//   nki: {source: my_kernel.py, function: my_kernel, args: {a: {shape: [128, 512], dtype: float32}, n: 4},
//         dge: auto, loop_buffers: 4, rename_copies: 8}
// Tensor arguments are HBM inputs given by shape and dtype; any other argument is passed to the
// function as the Python value the YAML spells. The source path is relative to the config.
#include <cmath>
#include <filesystem>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "configfile/config_node.h"
#include "kernels/kernel_entry.h"
#include "kernels/compiler_estimates.h"
#include "kernels/nki/frontend_process.h"
#include "kernels/trace_cache.h"

namespace bnsim::nki {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

struct NkiParams {
    std::string source;    // absolute
    std::string shown;     // as the config spells it, joined to the config's folder
    std::string function;
    json args = json::object();
    std::string dge = "auto";
    int loop_buffers = 4;
    int rename_copies = 8;  // copies of a tile whose values stay in one loop iteration (1: none)
    std::string python = "auto";  // see interpreter()
    std::vector<DecisionAxis> tune;  // `tune:` the args bnsim tune varies, with their values
};

// The most values one tune axis of an NKI kernel may list (each is traced and estimated).
constexpr size_t kMaxTuneValues = 64;

const std::vector<std::string> kTensorDtypes = {"float32", "bfloat16", "float16", "uint8", "int32"};

// A YAML value as the Python value it spells: booleans, integers, numbers, strings, lists, maps.
json value_json(ConfigNode& s, const YAML::Node& n, const std::string& key, int depth) {
    if (depth > 8) s.fail_at(n, key, "a value nested at most 8 levels deep");
    if (n.IsNull()) return nullptr;
    if (n.IsScalar()) {
        const std::string t = n.Scalar();
        if (n.Tag() == "!") return t;  // quoted: a string
        if (t == "true" || t == "True") return true;
        if (t == "false" || t == "False") return false;
        try {
            size_t used = 0;
            const long long v = std::stoll(t, &used, 10);
            if (used == t.size()) return v;
        } catch (...) {
        }
        try {
            size_t used = 0;
            const double v = std::stod(t, &used);
            if (used == t.size() && std::isfinite(v)) return v;
        } catch (...) {
        }
        return t;
    }
    if (n.IsSequence()) {
        if (n.size() > 1024) s.fail_at(n, key, "a list of at most 1024 values");
        json a = json::array();
        for (size_t i = 0; i < n.size(); ++i) a.push_back(value_json(s, n[i], key + "[" + std::to_string(i) + "]", depth + 1));
        return a;
    }
    json o = json::object();
    for (auto it = n.begin(); it != n.end(); ++it) {
        if (!it->first.IsScalar()) s.fail_at(it->first, key, "string keys");
        o[it->first.Scalar()] = value_json(s, it->second, key + "." + it->first.Scalar(), depth + 1);
    }
    return o;
}

json tensor_json(ConfigNode& s, const YAML::Node& n, const std::string& key) {
    json t = json::object();
    for (auto it = n.begin(); it != n.end(); ++it) {
        const std::string k = it->first.IsScalar() ? it->first.Scalar() : "";
        if (k != "shape" && k != "dtype")
            s.fail_at(it->first, key, "a tensor as {shape: [...], dtype: ...}; '" + k + "' is not a tensor key");
    }
    const YAML::Node shape = n["shape"];
    if (!shape.IsSequence() || shape.size() == 0 || shape.size() > 8)
        s.fail_at(shape.IsDefined() ? shape : n, key + ".shape", "a list of 1 to 8 dimensions");
    json dims = json::array();
    uint64_t elems = 1;
    for (size_t i = 0; i < shape.size(); ++i) {
        int64_t d = 0;
        try {
            d = shape[i].as<int64_t>();
        } catch (...) {
            s.fail_at(shape[i], key + ".shape", "positive integers");
        }
        if (d < 1 || d > (int64_t(1) << 31)) s.fail_at(shape[i], key + ".shape", "dimensions from 1 to 2^31");
        if (elems > (uint64_t(1) << 40) / uint64_t(d)) s.fail_at(shape, key + ".shape", "a tensor of at most 2^40 elements");
        elems *= uint64_t(d);
        dims.push_back(d);
    }
    t["shape"] = dims;
    const YAML::Node dt = n["dtype"];
    std::string name = dt.IsDefined() && dt.IsScalar() ? dt.Scalar() : "float32";
    bool ok = false;
    for (const auto& d : kTensorDtypes) ok = ok || d == name;
    if (!ok) s.fail_at(dt.IsDefined() ? dt : n, key + ".dtype", "one of float32, bfloat16, float16, uint8, int32, got '" + name + "'");
    t["dtype"] = name;
    return t;
}

std::any parse(ConfigNode& top, const KernelTarget&) {
    ConfigNode s = top.child("nki");
    NkiParams p;
    const std::string src = s.text("source");
    fs::path path(src);
    if (path.is_relative()) {
        const fs::path cfg_dir = fs::path(top.source() ? top.source()->file : "").parent_path();
        path = cfg_dir / path;
    }
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
        s.fail_at(s.node()["source"], "source", "an NKI kernel file (.py), relative to the config; " + path.string() +
                                                   (fs::exists(path, ec) ? " is not a regular file" : " does not exist"));
    p.shown = path.lexically_normal().string();
    p.source = fs::absolute(path, ec).lexically_normal().string();
    p.function = s.text("function");
    if (p.function.empty()) s.fail("function", "the kernel function's name");
    if (s.has("args")) {
        const YAML::Node a = s.raw("args");
        if (!a.IsMap()) s.fail_at(a, "args", "a mapping of the function's arguments");
        for (auto it = a.begin(); it != a.end(); ++it) {
            if (!it->first.IsScalar()) s.fail_at(it->first, "args", "argument names");
            const std::string k = it->first.Scalar();
            const std::string key = "args." + k;
            const YAML::Node v = it->second;
            p.args[k] = v.IsMap() && v["shape"].IsDefined() ? tensor_json(s, v, key) : value_json(s, v, key, 0);
        }
    }
    // `tune: {NAME: [V1, V2, ...]}`: the scalar args bnsim tune tries (the config's own value is
    // the kernel's choice). Each must be an arg of the config, so the axis names a key that exists.
    if (s.has("tune")) {
        const YAML::Node t = s.raw("tune");
        if (!t.IsMap() || t.size() == 0) s.fail_at(t, "tune", "a mapping of args to the lists of values to try");
        for (auto it = t.begin(); it != t.end(); ++it) {
            const std::string k = it->first.IsScalar() ? it->first.Scalar() : "";
            const std::string key = "tune." + k;
            if (k.empty() || !p.args.contains(k))
                s.fail_at(it->first, "tune", "names of the config's args (" + (k.empty() ? std::string("a complex key") : "'" + k + "' is not one") + ")");
            if (!p.args[k].is_number() && !p.args[k].is_boolean() && !p.args[k].is_string())
                s.fail_at(it->first, key, "a scalar arg (a tensor's shape is not a tune axis)");
            const YAML::Node v = it->second;
            if (!v.IsSequence() || v.size() == 0 || v.size() > kMaxTuneValues)
                s.fail_at(v, key, "a list of 1 to " + std::to_string(kMaxTuneValues) + " values");
            DecisionAxis a{"nki.args." + k, p.args[k].is_number_integer() ? "integer" : "value", {}};
            for (const auto& e : v) {
                if (!e.IsScalar()) s.fail_at(e, key, "scalar values");
                a.values.push_back(e.Scalar());
            }
            p.tune.push_back(std::move(a));
        }
    }
    p.dge = s.choice("dge", {"auto", "hardware", "software", "none"}, "auto");
    p.loop_buffers = int(s.integer("loop_buffers", 1, 8, 4));
    p.rename_copies = int(s.integer("rename_copies", 1, 16, 8));
    p.python = s.text("python", "auto");
    if (p.python.empty()) s.fail("python", "a Python 3 interpreter (auto, a name on PATH or a path)");
    s.finish();
    return p;
}

// `python: auto` is Debian's /usr/bin/python3 where it exists, else python3 on PATH. The frontend
// needs only the standard library, so any Python 3 gives the same trace; the system interpreter
// starts directly, where the first python3 on PATH may be a version manager's shim (pyenv's costs
// about 0.1 s per start on a 2-core VM, and a fit traces the kernel once per evaluation).
std::string interpreter(const std::string& python) {
    if (python != "auto") return python;
    return access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
}

// What the frontend is asked for these params on this target.
FrontendRequest frontend_request(const NkiParams& p, const KernelTarget& t) {
    json req;
    req["source"] = p.source;
    req["display_source"] = p.shown;
    req["function"] = p.function;
    req["args"] = p.args;
    req["target"] = {{"partitions", t.partitions}, {"sbuf_usable_bytes", t.sbuf_usable_bytes},
                     {"sbuf_align", t.sbuf_align},  {"cores", t.num_cores},
                     {"dma_queues", t.dma_queues},   {"dge", p.dge},
                     {"loop_buffers", p.loop_buffers}, {"rename_copies", p.rename_copies}};
    FrontendRequest r;
    r.python = interpreter(p.python);
    {
        std::error_code e1, e2;
        const auto size = std::filesystem::file_size(p.source, e1);
        const auto when = std::filesystem::last_write_time(p.source, e2);
        if (!e1 && !e2) r.source_stamp = std::to_string(size) + " " + std::to_string(when.time_since_epoch().count());
    }
    r.request_json = req.dump();
    return r;
}

// The kernel made from the frontend's trace (run now, or the command's trace file).
// The frontend's trace with its dependencies derived: the one kept for this request if its files
// are unchanged (kernels/trace_cache.h), else traced now and kept.
TraceFile traced(const FrontendRequest& r, const std::string& key) {
    if (auto kept = cached_trace(key)) return std::move(*kept);
    TraceFile tf = run_frontend(r);
    derive_dependencies(tf.trace);
    std::vector<std::string> files;
    if (const auto it = tf.info.find("kernel_files"); it != tf.info.end()) {
        if (it->is_array())
            for (const auto& f : *it)
                if (f.is_string()) files.push_back(f.get<std::string>());
        tf.info.erase(it);
    }
    if (!files.empty()) put_cached_trace(key, tf, files);  // (a frontend that names no files: not kept)
    return tf;
}

// The kernel made from its frontend trace (dependencies derived), with its reverse edges: a kernel
// made so is kept in memory and simulated again and again.
GeneratedKernel kernel_of(const NkiParams& p, const KernelTarget& t, TraceFile tf) {
    if (tf.trace.num_cores != t.num_cores)
        throw KernelError("nki: the trace has " + std::to_string(tf.trace.num_cores) + " cores; expected lnc " +
                          std::to_string(t.num_cores));
    GeneratedKernel g;
    g.trace = std::move(tf.trace);
    g.info["nki"] = tf.info;
    // Instructions the kernel names `measured...` (NKI's name= on an ISA call) are what a
    // calibration row measures (bnsim calibrate's instruction_ns, dma_efficiency...), as the C++
    // calibration kernels mark theirs.
    {
        json ids = json::array();
        uint64_t bytes = 0;
        for (const auto& in : g.trace.instructions())
            if (std::string(in.tag.what).rfind("measured", 0) == 0) {
                ids.push_back(in.id);
                if (in.is_dma()) bytes += in.dsts[0].region.bytes();
            }
        if (!ids.empty()) g.info["calibration"] = {{"measured_instructions", ids}, {"bytes", bytes}};
        for (const auto& id : ids) g.measured_instructions.push_back(id.get<uint32_t>());
        g.measured_bytes = bytes;
    }
    const json& i = tf.info;
    if (i.contains("loop_races") && i["loop_races"].is_array())
        for (const auto& r : i["loop_races"])
            if (r.is_string()) g.source_races.push_back(r.get<std::string>());
    g.summary.set("source", p.shown);
    g.summary.set("function", p.function);
    g.summary.set("dge", p.dge);
    g.summary.set("loop_buffers", int64_t(p.loop_buffers));
    g.summary.set("rename_copies", int64_t(p.rename_copies));
    g.summary.set("renamed_tiles", int64_t(i.value("renamed_tiles", 0)));
    g.summary.set("rotating_tiles", int64_t(i.value("rotating_tiles", 0)));
    g.summary.set("sbuf_peak_bytes", int64_t(i.value("sbuf_peak_bytes_per_partition", 0)));
    g.summary.set("psum_peak_banks", int64_t(i.value("psum_peak_banks", 0)));
    g.summary.set("inexact_hbm_regions", int64_t(i.value("inexact_hbm_regions", 0)));
    // The compiler's unpublished choices this trace depends on (docs/nki-frontend.md), as
    // estimates with the ranges their evidence spans.
    if (i.value("rotating_tiles", 0) > 0) g.estimates.push_back(loop_buffers_estimate("nki.loop_buffers", p.loop_buffers));
    if (i.value("renamed_tiles", 0) > 0) g.estimates.push_back(rename_copies_estimate("nki.rename_copies", p.rename_copies));
    g.dependents = std::make_shared<const Dependents>(g.trace);
    return g;
}

// The kernel, kept in memory for the next request in this process (kernels/trace_cache.h).
std::shared_ptr<const GeneratedKernel> kept(const std::any& a, const KernelTarget& t) {
    const NkiParams& p = kernel_params<NkiParams>(a);
    const FrontendRequest r = frontend_request(p, t);
    const std::string key = frontend_key(r);
    if (auto k = remembered_kernel(key)) return k;
    auto g = std::make_shared<const GeneratedKernel>(kernel_of(p, t, traced(r, key)));
    remember_kernel(key, g);
    return g;
}

GeneratedKernel generate(const std::any& a, const KernelTarget& t) { return *kept(a, t); }

bool keep_traced(const std::any& a, const KernelTarget& t) {
    const NkiParams& p = kernel_params<NkiParams>(a);
    const FrontendRequest r = frontend_request(p, t);
    const std::string key = frontend_key(r);
    if (is_remembered(key)) return true;
    auto kept = cached_trace(key);
    if (!kept) return false;
    try {
        remember_kernel(key, std::make_shared<const GeneratedKernel>(kernel_of(p, t, std::move(*kept))));
    } catch (const std::exception&) {
        return false;  // the children report it
    }
    return true;
}

}  // namespace

const KernelEntry& nki_entry() {
    static const KernelEntry e = [] {
        KernelEntry k;
        k.name = "nki";
        k.description = "any NKI kernel, traced from its Python source (kernels/nki/frontend)";
        k.parse = parse;
        k.generate = generate;
        k.kept = kept;
        k.keep_traced = keep_traced;
        k.tune_axes = [](const std::any& a, const KernelTarget&) { return kernel_params<NkiParams>(a).tune; };
        k.summary_fields = {
            {"source", "the kernel file"},
            {"function", "the traced function"},
            {"dge", "descriptor generation of DMAs whose call names none (auto: hardware, as neuronx-cc compiles for trn2; hardware, software, none: a --disable-dge profile run)"},
            {"loop_buffers", "rotating buffers of a tile allocated in a loop body, each with its own DMA queues (a compiler estimate, 1-8)"},
            {"rename_copies", "copies the compiler gives a tile whose values stay in one loop iteration (a compiler estimate, 1-16; 1: no renaming)"},
            {"renamed_tiles", "tiles given copies because no value crosses a loop iteration through them"},
            {"rotating_tiles", "tiles allocated in an affine_range or static_range body, each given loop_buffers rotating buffers"},
            {"sbuf_peak_bytes", "SBUF bytes per partition the allocator placed at the peak"},
            {"psum_peak_banks", "PSUM banks in use at the peak"},
            {"inexact_hbm_regions", "HBM accesses written as a bounding rectangle (not exact)"},
        };
        return k;
    }();
    return e;
}

}  // namespace bnsim::nki
