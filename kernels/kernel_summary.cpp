#include "kernels/kernel_summary.h"

#include <sstream>

namespace bnsim {

void KernelSummary::set(const std::string& name, SummaryValue v) {
    for (auto& f : fields_)
        if (f.first == name) {
            f.second = std::move(v);
            return;
        }
    fields_.emplace_back(name, std::move(v));
}

const SummaryValue* KernelSummary::find(const std::string& name) const {
    for (const auto& f : fields_)
        if (f.first == name) return &f.second;
    return nullptr;
}

nlohmann::ordered_json to_json(const SummaryValue& v) {
    return std::visit([](const auto& x) { return nlohmann::ordered_json(x); }, v);
}

std::string to_text(const SummaryValue& v) {
    if (const bool* b = std::get_if<bool>(&v)) return *b ? "on" : "off";
    if (const std::string* s = std::get_if<std::string>(&v)) return *s;
    std::ostringstream o;
    std::visit([&](const auto& x) { o << x; }, v);
    return o.str();
}

nlohmann::ordered_json summary_json(const KernelSummary& s) {
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    for (const auto& [name, v] : s.fields()) j[name] = to_json(v);
    return j;
}

}  // namespace bnsim
