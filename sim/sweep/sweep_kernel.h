#pragma once
// What a sweep needs to know about a kernel, taken from its registry entry: the decisions it
// makes for itself (the axes a sweep compares against its own choice), the --set pairs that
// leave every decision to it, and the fields it reports about the choices it made. The sweep,
// summary and report code use only this, so they name no kernel.
#include <string>
#include <utility>
#include <vector>

namespace bnsim {

struct SweepKernel {
    struct Axis {
        std::string key;   // dotted run-config key, e.g. "memory.f_tile"
        std::string kind;  // "integer" | "boolean"
        std::string field() const { return key.substr(key.rfind('.') + 1); }  // its summary field
    };
    std::string name;
    std::vector<Axis> decision_axes;
    std::vector<std::pair<std::string, std::string>> auto_overrides;
    std::vector<std::string> summary_fields;

    // A dotted key that belongs to the kernel's decisions (an axis, or under an auto override).
    bool is_decision_key(const std::string& key) const;
};

// Throws ConfigError for an unknown kernel.
SweepKernel sweep_kernel(const std::string& kernel_name);

}  // namespace bnsim
