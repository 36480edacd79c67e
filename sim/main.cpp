// bnsim: a cycle-approximate simulator of a Trainium2 NeuronCore running NKI kernels.
// Exit status: 0 success, 1 a failed check (validate, calibrate) or an internal error,
// 2 bad input or command-line usage.
#include <cstdlib>
#include <iostream>

#include <CLI/CLI.hpp>

#include "kernels/kernel_target.h"
#include "sim/commands/command.h"
#include "sim/output/error_line.h"
#include "sim/commands/unknown_command.h"
#include "sim/report/provenance.h"

int main(int argc, char** argv) {
    // SystemC prints a banner on stdout unless told not to; keep machine-readable output clean.
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
    CLI::App app{"bnsim: cycle-approximate Trainium2 NeuronCore simulator for NKI kernels"};
    app.set_version_flag("--version", std::string("bnsim ") + bnsim::bnsim_version());
    app.require_subcommand(1);
    bnsim::add_trace_command(app);
    bnsim::add_run_command(app);
    bnsim::add_validate_command(app);
    bnsim::add_calibrate_command(app);
    bnsim::add_params_command(app);
    bnsim::add_sweep_command(app);
    bnsim::add_merge_command(app);
    bnsim::add_compare_command(app);
    bnsim::add_fit_command(app);
    bnsim::add_sensitivity_command(app);
    bnsim::add_tune_command(app);
    bnsim::add_teaching_help(app);
    if (const auto usage = bnsim::unknown_command_error(app, argc, argv)) {
        std::cerr << "bnsim: " << *usage << "\n";
        return 2;
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::Success& e) {  // --help, --version
        return app.exit(e);
    } catch (const CLI::RuntimeError& e) {  // a command's own exit status (calibrate: 1 = a failed check)
        return e.get_exit_code();
    } catch (const CLI::ParseError& e) {
        // One line, as for every other bad input (CLI11's own exit() adds a second).
        std::string m = e.what();
        while (!m.empty() && m.back() == '\n') m.pop_back();
        for (char& c : m)
            if (c == '\n') c = ' ';
        std::cerr << "bnsim: " << m << " (--help lists the options)\n";
        return 2;
    } catch (...) {
        const bnsim::ErrorLine e = bnsim::error_line(std::current_exception());
        std::cerr << e.text << "\n";
        return e.exit_code;
    }
    return 0;
}
