#include "sim/report/trace_report.h"

#include <iomanip>
#include <ostream>
#include <sstream>

#include "kernels/kernel_entry.h"

namespace bnsim {

using json = nlohmann::ordered_json;

TraceReport trace_report(const RunConfig& cfg, const GeneratedKernel& k) {
    return TraceReport{cfg.kernel, cfg.file, cfg.hw.name, cfg.lnc, compute_stats(k.trace), k.info, k.summary};
}

json to_json(const TraceReport& r) {
    const TraceStats& s = r.stats;
    json j;
    j["kernel"] = r.kernel;
    j["config"] = r.config;
    j["hardware"] = r.hardware;
    j["lnc"] = r.lnc;
    for (auto it = r.kernel_fields.begin(); it != r.kernel_fields.end(); ++it) j[it.key()] = it.value();
    json ins;
    ins["total"] = s.total;
    json by_engine = json::object();
    for (Engine e : kAllEngines)
        if (s.by_engine[int(e)]) by_engine[engine_name(e)] = s.by_engine[int(e)];
    ins["by_engine"] = by_engine;
    json by_op = json::object();
    for (int i = 0; i < kNumOpcodes; ++i)
        if (s.by_opcode[i]) by_op[opcode_name(Opcode(i))] = s.by_opcode[i];
    ins["by_opcode"] = by_op;
    ins["dma"] = s.dma;
    json dge = json::object();
    for (int m = 0; m < kNumDgeModes; ++m)
        if (s.dma_by_dge[m]) dge[dge_name(DgeMode(m))] = s.dma_by_dge[m];
    ins["dma_by_dge"] = dge;
    ins["dependency_edges"] = s.dependency_edges;
    j["instructions"] = ins;
    j["hbm_bytes"] = {{"read", s.hbm_read_bytes}, {"write", s.hbm_write_bytes}};
    j["kernel_summary"] = summary_json(r.kernel_summary);
    return j;
}

namespace {

std::string mib(uint64_t b) {
    std::ostringstream o;
    o << std::fixed << std::setprecision(2) << double(b) / (1024.0 * 1024.0) << " MiB";
    return o.str();
}

}  // namespace

void print_trace_report(const TraceReport& r, std::ostream& out) {
    const TraceStats& s = r.stats;
    out << "kernel      " << r.kernel << " on " << r.hardware << ", lnc=" << r.lnc << "\n";
    if (const KernelEntry* e = find_kernel(r.kernel); e && e->print_trace_lines) e->print_trace_lines(r.kernel_fields, out);
    out << "instructions " << s.total << " (" << s.dma << " DMA, " << s.dependency_edges << " dependency edges)\n  by engine:";
    for (Engine e : kAllEngines)
        if (s.by_engine[int(e)]) out << " " << engine_name(e) << "=" << s.by_engine[int(e)];
    out << "\n  by opcode:";
    for (int i = 0; i < kNumOpcodes; ++i)
        if (s.by_opcode[i]) out << " " << opcode_name(Opcode(i)) << "=" << s.by_opcode[i];
    out << "\n  DMA by DGE:";
    for (int m = 0; m < kNumDgeModes; ++m)
        if (s.dma_by_dge[m]) out << " " << dge_name(DgeMode(m)) << "=" << s.dma_by_dge[m];
    out << "\nhbm         read " << mib(s.hbm_read_bytes) << ", write " << mib(s.hbm_write_bytes) << "\n";
}

}  // namespace bnsim
