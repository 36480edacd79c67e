#pragma once
// JSON and text forms of the comparison figures: non-finite numbers as strings ("nan", "inf"),
// scientific notation, and an OutputCheck as the validate report shows it.
#include <string>

#include <nlohmann/json.hpp>

#include "numerics/comparison.h"

namespace bnsim::num {

nlohmann::ordered_json json_number(double v);       // NaN/inf as strings JSON can hold
std::string sci(const nlohmann::ordered_json& v);   // "%.3e", or the string as is
std::string fixed3(const nlohmann::ordered_json& v);  // "%.3f", or the string as is
nlohmann::ordered_json output_check_json(const OutputCheck& o);

}  // namespace bnsim::num
