#pragma once
// Subcommands of the bnsim executable. Each adds itself to the CLI11 app; main stays thin.
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace bnsim {

// Options every subcommand that runs a config shares.
struct ConfigOptions {
    std::string config;
    std::vector<std::string> sets;
    bool json = false;
    void add_to(CLI::App& cmd);
};

void add_trace_command(CLI::App& app);      // trace_command.cpp
void add_run_command(CLI::App& app);        // run_command.cpp (timing)
void add_validate_command(CLI::App& app);   // validate_command.cpp (numerics)
void add_calibrate_command(CLI::App& app);  // calibrate_command.cpp (calibration microbenchmarks)
void add_params_command(CLI::App& app);     // params_command.cpp (the hardware parameter table)
void add_sweep_command(CLI::App& app);      // sweep_command.cpp (grids of configs, one process per point)
void add_merge_command(CLI::App& app);      // merge_command.cpp (sweep shards into one result set)
void add_compare_command(CLI::App& app);    // compare_command.cpp (measured runs and profiles)
void add_fit_command(CLI::App& app);        // fit_command.cpp (hardware parameters to measured runs)
void add_sensitivity_command(CLI::App& app);  // sensitivity_command.cpp (what a prediction hangs on)
void add_tune_command(CLI::App& app);         // tune_command.cpp (the memory-config decision)

// Argument kinds and an example in every command's --help (help_text.cpp); after the commands.
void add_teaching_help(CLI::App& app);

// The name an option goes by in messages and tables: "-j,--jobs" -> "--jobs" (help_text.cpp).
std::string long_option_name(const std::string& names);

// configs/default.yaml from the working directory, else from the source tree.
std::string default_run_config();

}  // namespace bnsim
