// bnsim: a cycle-approximate simulator of a Trainium2 NeuronCore running NKI kernels.
#include <cstdlib>
#include <iostream>

#include <CLI/CLI.hpp>

#include "kernels/kernel_target.h"
#include "sim/commands/command.h"
#include "configfile/config_error.h"
#include "sim/commands/output_file.h"

int main(int argc, char** argv) {
    // SystemC prints a banner on stdout unless told not to; keep machine-readable output clean.
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
    CLI::App app{"bnsim: cycle-approximate Trainium2 NeuronCore simulator for NKI kernels"};
    app.require_subcommand(1);
    bnsim::add_trace_command(app);
    bnsim::add_run_command(app);
    bnsim::add_validate_command(app);
    bnsim::add_calibrate_command(app);
    bnsim::add_params_command(app);
    bnsim::add_sweep_command(app);
    bnsim::add_merge_command(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    } catch (const bnsim::ConfigError& e) {
        std::cerr << "bnsim: config error: " << e.what() << "\n";
        return 2;
    } catch (const bnsim::UsageError& e) {
        std::cerr << "bnsim: " << e.what() << "\n";
        return 2;
    } catch (const bnsim::KernelError& e) {
        std::cerr << "bnsim: " << e.what() << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "bnsim: error: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
