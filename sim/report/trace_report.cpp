#include "sim/config/run_config.h"
#include "sim/report/trace_report.h"

#include "kernels/kernel_entry.h"

#include <iomanip>
#include <ostream>

namespace bnsim {

using json = nlohmann::ordered_json;

json trace_report_json(const RunConfig& cfg, const GeneratedKernel& k) {
    const TraceStats s = compute_stats(k.trace);
    json j;
    j["kernel"] = cfg.kernel;
    j["config"] = cfg.file;
    j["hardware"] = cfg.hw.name;
    j["lnc"] = cfg.lnc;
    for (auto it = k.info.begin(); it != k.info.end(); ++it) j[it.key()] = it.value();
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
    j["kernel_summary"] = summary_json(k.summary);
    return j;
}

static std::string mib(uint64_t b) {
    std::ostringstream o;
    o << std::fixed << std::setprecision(2) << double(b) / (1024.0 * 1024.0) << " MiB";
    return o.str();
}

void print_trace_report(const json& r, std::ostream& out) {
    out << "kernel      " << r["kernel"].get<std::string>() << " on " << r["hardware"].get<std::string>()
        << ", lnc=" << r["lnc"] << "\n";
    if (const KernelEntry* e = find_kernel(r["kernel"].get<std::string>()); e && e->print_trace_lines) e->print_trace_lines(r, out);
    if (r.contains("sbuf_bytes"))
        out << "sbuf        budget " << r["sbuf_bytes"]["budget"] << " B/partition\n";
    const json& i = r["instructions"];
    out << "instructions " << i["total"] << " (" << i["dma"] << " DMA, " << i["dependency_edges"]
        << " dependency edges)\n  by engine:";
    for (auto it = i["by_engine"].begin(); it != i["by_engine"].end(); ++it)
        out << " " << it.key() << "=" << it.value();
    out << "\n  by opcode:";
    for (auto it = i["by_opcode"].begin(); it != i["by_opcode"].end(); ++it)
        out << " " << it.key() << "=" << it.value();
    out << "\n  DMA by DGE:";
    for (auto it = i["dma_by_dge"].begin(); it != i["dma_by_dge"].end(); ++it)
        out << " " << it.key() << "=" << it.value();
    out << "\nhbm         read " << mib(r["hbm_bytes"]["read"]) << ", write " << mib(r["hbm_bytes"]["write"])
        << "\n";
}

}  // namespace bnsim
