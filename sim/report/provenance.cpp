#include "sim/report/provenance.h"

#include <cstdint>
#include <cstdio>

#include "bnsim_version.h"  // generated at build time by cmake/version.cmake
#include "sim/config/run_config.h"
#include "trace/fnv1a64.h"

namespace bnsim {

const char* bnsim_version() { return BNSIM_VERSION; }

nlohmann::ordered_json Provenance::json() const {
    return {{"bnsim_version", bnsim_version}, {"config_hash", config_hash}};
}

std::string Provenance::line() const { return "provenance  bnsim " + bnsim_version + ", config " + config_hash; }

Provenance provenance_of_text(const std::string& canonical) {
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fnv1a64(canonical)));
    return {bnsim_version(), std::string("fnv1a64:") + hex};
}

Provenance provenance_of(const RunConfig& cfg) { return provenance_of_text(cfg.resolved_json()); }

}  // namespace bnsim
