#pragma once
// Prints a comparison (sim/compare/compare.h) as a table, and writes it as one self-contained
// HTML page with SVG charts: predicted against measured (scatter, y = x line) and per-engine
// busy time (bars).
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

namespace bnsim {

void print_compare_report(const nlohmann::ordered_json& report, std::ostream& out);

// The page's markup (report as built by the compare command: "points" and/or "profile").
std::string compare_html(const nlohmann::ordered_json& report);

}  // namespace bnsim
