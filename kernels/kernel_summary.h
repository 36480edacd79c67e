#pragma once
// What a kernel reports about the choices it made (memory config, tiling, ...): typed values
// under the names its entry declares, printed by the generic reports as "kernel_summary".
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace bnsim {

// A summary field a kernel declares: its name and a one-line description.
struct SummaryField {
    std::string name;
    std::string description;
};

using SummaryValue = std::variant<bool, int64_t, double, std::string>;

// Field values in the order the kernel declares them.
class KernelSummary {
public:
    void set(const std::string& name, SummaryValue v);
    const SummaryValue* find(const std::string& name) const;
    const std::vector<std::pair<std::string, SummaryValue>>& fields() const { return fields_; }
    bool empty() const { return fields_.empty(); }

private:
    std::vector<std::pair<std::string, SummaryValue>> fields_;
};

nlohmann::ordered_json to_json(const SummaryValue& v);
std::string to_text(const SummaryValue& v);
nlohmann::ordered_json summary_json(const KernelSummary& s);

}  // namespace bnsim
