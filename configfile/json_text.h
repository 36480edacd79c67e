#pragma once
// Parsing JSON from a file bnsim was given, without trusting it: nesting past a depth limit is
// refused as it is read (a 100,000-deep array would otherwise overflow the stack of every
// recursive walk after it), a key given twice in one object is an error (the JSON library would
// keep the last silently), and numbers must be finite. Errors are ConfigError naming the file,
// the line (syntax errors) or the path to the value ("summary[0].total_time"), and what was
// expected; the library's own message text never reaches the user.
#include <string>

#include <nlohmann/json.hpp>

namespace bnsim {

// Deep enough for every JSON bnsim reads or writes (a run report nests 5 levels).
constexpr int kMaxJsonDepth = 64;

// origin is the file (with ":LINE" for one record of a JSON-lines file); what is what the text
// should be ("a profile JSON").
nlohmann::ordered_json parse_json_text(const std::string& text, const std::string& origin, const std::string& what,
                                       int max_depth = kMaxJsonDepth);

}  // namespace bnsim
