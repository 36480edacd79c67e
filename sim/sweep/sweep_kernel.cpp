#include "sim/sweep/sweep_kernel.h"

#include "configfile/config_error.h"
#include "kernels/kernel_entry.h"

namespace bnsim {

bool SweepKernel::is_decision_key(const std::string& key) const {
    for (const auto& a : decision_axes)
        if (key == a.key) return true;
    for (const auto& [k, v] : auto_overrides)
        if (key == k || key.rfind(k + ".", 0) == 0) return true;
    return false;
}

SweepKernel sweep_kernel(const std::string& kernel_name) {
    const KernelEntry* e = find_kernel(kernel_name);
    if (!e) throw ConfigError("unknown kernel '" + kernel_name + "'");
    SweepKernel k;
    k.name = e->name;
    for (const auto& a : e->decision_axes) k.decision_axes.push_back({a.key, a.kind});
    k.auto_overrides = e->auto_overrides;
    for (const auto& f : e->summary_fields) k.summary_fields.push_back(f.name);
    return k;
}

}  // namespace bnsim
