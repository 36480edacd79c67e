// bnsim merge: combine the output folders of a sweep's shards into one result set, identical to
// an unsharded run of the same sweep. The merged folder appears whole at the end (StagedDir); an
// --out that holds anything but an earlier merge is refused unless --force, and an input folder
// or a running sweep's folder never is one.
#include <sys/file.h>
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "sim/commands/command.h"
#include "configfile/config_error.h"
#include "sim/output/output_file.h"
#include "sim/sweep/results_dir.h"
#include "sim/sweep/sweep_outputs.h"
#include "sim/sweep/sweep_summary.h"

namespace bnsim {

namespace fs = std::filesystem;

namespace {

// The files of a sweep folder, as merge writes them.
const std::vector<std::string> kMergeFiles{"sweep.json", "results.jsonl", "results.csv", "summary.json", "report.html"};

bool same_folder(const std::string& a, const std::string& b) {
    std::error_code ec;
    return fs::equivalent(a, b, ec);
}

// Whether a running sweep holds DIR's lock.
bool sweep_running_in(const std::string& dir) {
    const std::string lock = (fs::path(dir) / ".lock").string();
    const int fd = open(lock.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return false;
    const bool busy = flock(fd, LOCK_SH | LOCK_NB) != 0;
    close(fd);
    return busy;
}

// An --out that may be replaced: absent, empty, an earlier merge, or (with --force) a sweep
// folder no sweep is running in.
void check_out(const std::string& out, const std::vector<std::string>& inputs, bool force) {
    for (const auto& d : inputs)
        if (same_folder(out, d))
            throw UsageError("--out " + out + ": is one of the folders being merged; expected a new folder");
    std::error_code ec;
    if (!fs::exists(out, ec)) return;
    if (!fs::is_directory(out, ec)) throw UsageError("--out " + out + ": exists and is not a folder");
    if (fs::is_empty(out, ec)) return;
    if (sweep_running_in(out)) throw UsageError("--out " + out + ": a bnsim sweep is running in it");
    if (force) return;
    // A merge's folder is a sweep folder without the .lock every sweep's own folder has (so
    // sweep.json stays byte-identical to an unsharded run's).
    bool earlier_merge = foreign_entries(out, kMergeFiles).empty();
    if (earlier_merge) {
        try {
            read_meta(out);
        } catch (const ConfigError&) {
            earlier_merge = false;
        }
    }
    if (!earlier_merge)
        throw UsageError("--out " + out + ": already holds results that an earlier merge did not write; choose a new "
                         "folder, or pass --force to replace them");
}

}  // namespace

void add_merge_command(CLI::App& app) {
    auto* cmd = app.add_subcommand("merge", "combine sweep shard folders into one result set");
    auto dirs = std::make_shared<std::vector<std::string>>();
    auto out = std::make_shared<std::string>();
    auto force = std::make_shared<bool>(false);
    cmd->add_option("dirs", *dirs, "shard output folders (bnsim sweep --shard i/N --out DIR)")->required()->type_name("DIR...");
    cmd->add_option("--out", *out, "folder for the merged results (new, or an earlier merge's)")->required()->type_name("DIR");
    cmd->add_flag("--force", *force, "replace an --out that holds other sweep results");
    cmd->callback([dirs, out, force]() {
        check_out(*out, *dirs, *force);
        std::vector<std::string> own = kMergeFiles;
        if (*force) own.push_back(".lock");  // a finished sweep's folder
        StagedDir staged("--out", *out, own);
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
        const std::string tmp = staged.files().path();
        write_results(tmp, meta, all);
        const auto summary = write_sweep_answers(tmp, meta, all);
        staged.commit();
        print_sweep_summary(summary, std::cout);
        const size_t total = meta["points"].size();
        if (all.size() < total)
            std::cout << "\nnote: " << total - all.size() << " of " << total << " points are in none of the folders\n";
        std::cout << "\nmerged " << dirs->size() << " folders into " << *out << "\n";
    });
}

}  // namespace bnsim
