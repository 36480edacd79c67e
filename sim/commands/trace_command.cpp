// bnsim trace: generate a kernel's instruction trace and summarise it.
#include <iostream>
#include <optional>

#include "sim/config/run_config.h"
#include "sim/commands/command.h"
#include "sim/output/output_file.h"
#include "sim/report/provenance.h"
#include "sim/report/trace_report.h"
#include "models/cost_model.h"
#include "trace/trace_json.h"

namespace bnsim {

void add_trace_command(CLI::App& app) {
    auto* cmd = app.add_subcommand("trace", "generate the kernel's instruction trace and summarise it");
    auto opts = std::make_shared<ConfigOptions>();
    auto dump = std::make_shared<std::string>();
    opts->add_to(*cmd);
    auto* dump_opt = cmd->add_option("--dump", *dump,
                                     "write every instruction with its regions and dependencies as JSON lines "
                                     "(- for standard output; the text report then goes to standard error)");
    cmd->callback([opts, dump, dump_opt]() {
        std::optional<OutputFile> out;
        if (dump_opt->count()) out.emplace("--dump", *dump, opts->json);
        RunConfig cfg = load_run_config(opts->config, parse_overrides(opts->sets));
        GeneratedKernel k = cfg.generate();
        const Provenance prov = provenance_of(cfg);
        if (out) out->write([&](std::ostream& o) {
            // Each engine instruction names the cost row that prices it (index in the
            // preset's costs list, its id if it has one, and whether it is an estimate).
            const CostModel cost(cfg.hw);
            write_trace_jsonl(k.trace, o, {{"provenance", prov.json()}}, [&](const Instruction& ins, nlohmann::ordered_json& j) {
                const CostEntry* row = ins.is_dma() || ins.opcode == Opcode::SendRecv ? nullptr : cost.find(ins);
                if (!row) return;
                j["cost_row"] = {{"index", size_t(row - cfg.hw.costs.data())},
                                 {"id", row->id},
                                 {"estimate", row->estimate}};
            });
        });
        const TraceReport report = trace_report(cfg, k);
        if (opts->json) {
            auto j = to_json(report);
            j["provenance"] = prov.json();
            std::cout << j.dump(2) << "\n";
        } else {
            std::ostream& text = out && out->is_stdout() ? std::cerr : std::cout;
            print_trace_report(report, text);
            text << prov.line() << "\n";
        }
    });
}

}  // namespace bnsim
