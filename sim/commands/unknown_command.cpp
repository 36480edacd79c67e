#include "sim/commands/unknown_command.h"

#include <algorithm>
#include <vector>

#include "configfile/closest_names.h"

namespace bnsim {

std::optional<std::string> unknown_command_error(const CLI::App& app, int argc, const char* const* argv) {
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
        names.push_back(sub->get_name());
    std::string list;
    for (size_t i = 0; i < names.size(); ++i) list += (i ? (i + 1 == names.size() ? " or " : ", ") : "") + names[i];
    if (argc < 2) return "a command is required: " + list + " (bnsim --help)";
    const std::string word = argv[1];
    if (!word.empty() && word[0] == '-') return std::nullopt;
    if (std::find(names.begin(), names.end(), word) != names.end()) return std::nullopt;
    std::string msg = "unknown command '" + word + "'; the commands are " + list;
    std::string best;
    size_t best_d = 3;  // suggest only a close name: at most 2 edits, or a prefix
    for (const auto& n : names) {
        const size_t d = n.rfind(word, 0) == 0 ? 0 : edit_distance(word, n);
        if (d < best_d) best_d = d, best = n;
    }
    if (!best.empty()) msg += " (did you mean '" + best + "'?)";
    return msg;
}

}  // namespace bnsim
