// bnsim merge: combine the output folders of a sweep's shards into one result set, identical to
// an unsharded run of the same sweep.
#include <iostream>

#include "sim/commands/command.h"
#include "configfile/config_error.h"
#include "sim/sweep/results_dir.h"
#include "sim/sweep/sweep_outputs.h"
#include "sim/sweep/sweep_summary.h"

namespace bnsim {

void add_merge_command(CLI::App& app) {
    auto* cmd = app.add_subcommand("merge", "combine sweep shard folders into one result set");
    auto dirs = std::make_shared<std::vector<std::string>>();
    auto out = std::make_shared<std::string>();
    cmd->add_option("dirs", *dirs, "shard output folders (bnsim sweep --shard i/N --out DIR)")->required();
    cmd->add_option("--out", *out, "folder for the merged results")->required();
    cmd->callback([dirs, out]() {
        nlohmann::ordered_json meta;
        Records all;
        std::map<std::string, std::string> from;  // point id -> folder
        for (const auto& d : *dirs) {
            const auto m = read_meta(d);
            if (meta.is_null()) {
                meta = m;
            } else if (m["sweep_id"] != meta["sweep_id"]) {
                throw ConfigError(d + ": holds a different sweep than " + dirs->front() + " (other points or base config)");
            } else {
                check_same_build(meta, dirs->front(), m, d);
            }
            for (auto& [id, r] : read_records(d)) {
                auto it = all.find(id);
                if (it != all.end() && it->second != r)
                    throw ConfigError(d + ": point " + id + " differs from the same point in " + from[id]);
                from[id] = d;
                all[id] = r;
            }
        }
        meta["shard"] = "all";
        write_results(*out, meta, all);
        const auto summary = write_sweep_answers(*out, meta, all);
        print_sweep_summary(summary, std::cout);
        const size_t total = meta["points"].size();
        if (all.size() < total)
            std::cout << "\nnote: " << total - all.size() << " of " << total << " points are in none of the folders\n";
        std::cout << "\nmerged " << dirs->size() << " folders into " << *out << "\n";
    });
}

}  // namespace bnsim
