#pragma once
// Prints a comparison (sim/compare/compare.h) as a table, and writes it as one self-contained
// HTML page with SVG charts: predicted against measured (scatter, y = x line) and per-engine
// busy time (bars).
#include <ostream>
#include <string>

#include "sim/compare/compare.h"

namespace bnsim {

void print_compare_report(const CompareReport& report, std::ostream& out);

// The page's markup.
std::string compare_html(const CompareReport& report);

}  // namespace bnsim
