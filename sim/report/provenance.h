#pragma once
// Which build of bnsim made an output, from which resolved config: every JSON output carries
// {"provenance": {"bnsim_version", "config_hash"}}, every text report one provenance line, so
// results from different builds or configs can be told apart.
#include <string>

#include <nlohmann/json.hpp>

namespace bnsim {

struct RunConfig;

// `git describe --always --dirty` of the source tree at build time, or "unknown" outside git.
const char* bnsim_version();

struct Provenance {
    std::string bnsim_version;
    std::string config_hash;  // "fnv1a64:" + 16 hex digits over the canonical resolved config

    nlohmann::ordered_json json() const;
    std::string line() const;  // "provenance  bnsim VERSION, config fnv1a64:..."
};

// Of one run config: its canonical JSON after --set, with the hardware preset's after --set.
Provenance provenance_of(const RunConfig& cfg);
// Of any canonical text (e.g. several configs run together).
Provenance provenance_of_text(const std::string& canonical);

}  // namespace bnsim
