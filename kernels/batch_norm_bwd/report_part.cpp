#include "kernels/batch_norm_bwd/report_part.h"

namespace bnsim::bn {

using json = nlohmann::ordered_json;

void add_run_fields(const GeneratedKernel& k, json& j) {
    if (k.info.contains("memory_config")) j["memory_config"] = k.info["memory_config"];
    if (k.info.contains("sharding")) j["sharding"] = {{"mode", k.info["sharding"]["mode"]}};
}

void print_run_lines(const json& r, std::ostream& out) {
    if (!r.contains("memory_config")) return;
    const json& m = r["memory_config"];
    out << "memory      f_tile=" << m["f_tile"] << " interleave=" << m["interleave"] << " replication=" << m["replication"]
        << " direct_x_residency=" << (m["direct_x_residency"].get<bool>() ? "on" : "off") << " ("
        << m["source"].get<std::string>() << ")";
    if (r.contains("sharding")) out << ", sharding " << r["sharding"]["mode"].get<std::string>();
    out << "\n";
}

void print_trace_lines(const json& r, std::ostream& out) {
    if (r.contains("memory_config")) {
        const json& m = r["memory_config"];
        out << "memory      f_tile=" << m["f_tile"] << " interleave=" << m["interleave"] << " n_sp_tiles=" << m["n_sp_tiles"]
            << " replication=" << m["replication"]
            << " direct_x_residency=" << (m["direct_x_residency"].get<bool>() ? "on" : "off") << " ("
            << m["source"].get<std::string>() << ")\n";
    }
    if (r.contains("sharding")) {
        const json& s = r["sharding"];
        out << "sharding    " << s["mode"].get<std::string>() << " (" << s["n_c_tiles"] << " channel tiles)\n";
        for (const auto& c : s["cores"]) {
            out << "  core " << c["core"] << ": channel tiles [" << c["channel_tiles"][0] << ", " << c["channel_tiles"][1]
                << "), batches [" << c["batches"][0] << ", " << c["batches"][1] << "), " << c["units"] << " units";
            if (c.contains("sbuf_phase1_bytes"))
                out << ", SBUF/partition phase 1 " << c["sbuf_phase1_bytes"] << " B, phase 2 " << c["sbuf_phase2_bytes"] << " B";
            out << "\n";
        }
    }
    if (r.contains("sbuf_bytes")) out << "sbuf        budget " << r["sbuf_bytes"]["budget"] << " B/partition\n";
}

}  // namespace bnsim::bn
