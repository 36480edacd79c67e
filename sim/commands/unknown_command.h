#pragma once
// A mistyped or missing subcommand: CLI11 alone says only "A subcommand is required"; this names
// the commands that exist and the likely one.
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

namespace bnsim {

// The usage error for argv's command word, or nothing if argv names a subcommand of app or
// starts with an option (--help, --version).
std::optional<std::string> unknown_command_error(const CLI::App& app, int argc, const char* const* argv);

}  // namespace bnsim
