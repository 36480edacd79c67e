#pragma once
// One CSV field, RFC 4180 quoted when it needs to be (every CSV bnsim writes uses this).
#include <string>

namespace bnsim {

std::string csv_field(const std::string& s);

}  // namespace bnsim
