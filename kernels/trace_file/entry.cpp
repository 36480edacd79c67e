// The `trace` kernel: a trace file (docs/trace-format.md), e.g. one `bnsim trace --dump` wrote or
// the NKI frontend recorded, run as it stands:
//   kernel: trace
//   trace: {file: seed.jsonl}     # relative to the config
#include <filesystem>

#include "configfile/config_node.h"
#include "kernels/kernel_entry.h"
#include "trace/trace_reader.h"

namespace bnsim::tracefile {
namespace {

namespace fs = std::filesystem;

struct Params {
    std::string file;
    std::string shown;
};

std::any parse(ConfigNode& top, const KernelTarget&) {
    ConfigNode s = top.child("trace");
    Params p;
    fs::path path(s.text("file"));
    if (path.is_relative()) path = fs::path(top.source() ? top.source()->file : "").parent_path() / path;
    std::error_code ec;
    if (!fs::exists(path, ec)) s.fail_at(s.node()["file"], "file", "a trace file, relative to the config; " + path.string() + " does not exist");
    p.file = path.string();
    p.shown = path.lexically_normal().string();
    s.finish();
    return p;
}

GeneratedKernel generate(const std::any& a, const KernelTarget& t) {
    const Params& p = kernel_params<Params>(a);
    TraceFile tf;
    try {
        tf = read_trace_file(p.file);
    } catch (const TraceFileError& e) {
        throw KernelError(std::string("trace.file: ") + e.what());
    }
    if (tf.trace.num_cores != t.num_cores)
        throw KernelError("trace.file: " + p.shown + " is a trace of " + std::to_string(tf.trace.num_cores) +
                          " core(s); expected the config's lnc " + std::to_string(t.num_cores));
    GeneratedKernel g;
    g.trace = std::move(tf.trace);
    derive_dependencies(g.trace);
    g.info["trace_file"] = p.shown;
    if (!tf.info.empty()) g.info["producer"] = tf.info;
    g.summary.set("file", p.shown);
    g.summary.set("producer_kernel", g.trace.kernel);
    return g;
}

}  // namespace

const KernelEntry& trace_file_entry() {
    static const KernelEntry e = [] {
        KernelEntry k;
        k.name = "trace";
        k.description = "a trace file (docs/trace-format.md) run as it stands";
        k.parse = parse;
        k.generate = generate;
        k.made_from_params_alone = false;  // the trace file may change between two runs
        k.summary_fields = {{"file", "the trace file"}, {"producer_kernel", "the kernel the file is a trace of"}};
        return k;
    }();
    return e;
}

}  // namespace bnsim::tracefile
