// bnsim validate: run the kernel's trace on real data with the hardware's numerics, check the
// execution for hazards, and compare dx, dgamma, dbeta with a float64 reference and an
// independent float32 oracle. Exit status: 0 pass, 1 fail, 2 bad config or inputs.
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <sys/stat.h>

#include "kernels/kernel_target.h"
#include "numerics/bn_validate.h"
#include "numerics/npy.h"
#include "numerics/runners.h"
#include "sim/commands/command.h"
#include "sim/commands/output_file.h"
#include "sim/report/provenance.h"
#include "sim/report/validate_report.h"
#include "sim/simulate.h"

namespace bnsim {
namespace {

uint64_t mem_available_bytes() {
    std::ifstream f("/proc/meminfo");
    std::string key;
    uint64_t kb = 0;
    std::string unit;
    while (f >> key >> kb >> unit)
        if (key == "MemAvailable:") return kb * 1024;
    return 0;
}

std::string gib(uint64_t b) {
    std::ostringstream o;
    o.precision(3);
    o << double(b) / double(1ull << 30) << " GiB";
    return o.str();
}

void need_input_dir(const std::string& dir) {
    struct stat st;
    if (dir.empty()) throw UsageError("--inputs '': expected a directory of .npy files");
    if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        throw UsageError("--inputs '" + dir + "': not a directory; expected a directory of .npy files");
}

}  // namespace

void add_validate_command(CLI::App& app) {
    auto* cmd = app.add_subcommand(
        "validate", "run the trace on real data with the hardware's numerics and check it against a float oracle");
    auto opts = std::make_shared<ConfigOptions>();
    auto inputs = std::make_shared<std::string>();
    auto outputs = std::make_shared<std::string>();
    auto save_inputs = std::make_shared<std::string>();
    auto order = std::make_shared<std::string>("timing");
    opts->add_to(*cmd);
    auto* inputs_opt = cmd->add_option("--inputs", *inputs,
                    "read dy.npy, x_in.npy, means.npy, variances.npy, gamma.npy, beta.npy (and relu_mask.npy) "
                    "from DIR instead of generating them");
    auto* outputs_opt = cmd->add_option("--outputs", *outputs,
                                        "write the kernel's dx.npy, dgamma.npy, dbeta.npy (float32) to DIR (created if missing)");
    auto* save_inputs_opt = cmd->add_option("--save-inputs", *save_inputs,
                                            "write the inputs used as .npy files to DIR (created if missing)");
    cmd->add_option("--order", *order,
                    "instruction order: timing (as the timing simulation runs them, the default), sequential "
                    "(each core's program order), dataflow (as soon as the trace's dependencies allow)")
        ->check(CLI::IsMember({"timing", "sequential", "dataflow"}));
    cmd->callback([=]() {
        // Output directories are checked before anything runs.
        std::optional<OutputDir> out_dir, save_dir;
        if (outputs_opt->count()) out_dir.emplace("--outputs", *outputs);
        if (save_inputs_opt->count()) save_dir.emplace("--save-inputs", *save_inputs);
        if (inputs_opt->count()) need_input_dir(*inputs);
        RunConfig cfg = load_run_config(opts->config, parse_overrides(opts->sets));
        if (!std::any_cast<bn::Params>(&cfg.kernel_params))
            throw ConfigError(opts->config + ": bnsim validate supports kernel: batch_norm_bwd (got " + cfg.kernel + ")");
        const bn::Params& p = kernel_params<bn::Params>(cfg.kernel_params);

        GeneratedKernel k = cfg.generate();
        // Refuse up front what cannot fit in memory (the trace says which HBM tensors and SBUF images
        // the execution allocates; generating it allocates no tensor data).
        const uint64_t bpp = cfg.hw.sbuf.usable_bytes_per_partition;
        const int parts = cfg.hw.sbuf.partitions;
        const uint64_t need = num::validate_bytes_needed(k.trace, p, parts, bpp);
        const uint64_t limit = cfg.numerics.memory_limit_bytes ? cfg.numerics.memory_limit_bytes : mem_available_bytes();
        if (limit && need > limit) {
            std::ostringstream m;
            m << "batch_norm_bwd: validating " << p.shape.elements() << " elements needs about " << need << " bytes ("
              << gib(need) << ") of memory but only " << limit << " (" << gib(limit) << ") are "
              << (cfg.numerics.memory_limit_bytes ? "allowed by numerics.memory_limit_bytes" : "available")
              << "; validate a smaller shape";
            throw KernelError(m.str());
        }

        num::BnInputs in;
        try {
            in = inputs->empty() ? num::generate_inputs(p, cfg.numerics.inputs) : num::read_inputs(*inputs, p);
            if (save_dir)
                for (const auto& f : num::input_files(in)) save_dir->write(f.name, f.write);
        } catch (const num::NpyError& e) {
            throw KernelError(e.what());  // a user problem with the files: exit status 2
        }

        num::ValidateOptions vo;
        vo.scale_bias_operand_bits =
            cfg.numerics.scale_bias_operand_bits.value_or(cfg.hw.numerics.scale_bias_operand_bits);
        vo.tolerance_scale = cfg.numerics.tolerance_scale;
        vo.relu_kink = cfg.numerics.relu_kink;
        vo.partitions = parts;
        vo.sbuf_bytes_per_partition = bpp;
        ValidateContext ctx;
        num::Runner runner;
        double sim_latency_ns = 0;
        if (*order == "timing") {
            const HwConfig hw = cfg.hw;
            const SchedulePolicy policy = cfg.schedule;
            runner = [hw, policy, &sim_latency_ns](const Trace& t, ExecutionObserverIF& obs) {
                SimOptions so;
                so.policy = policy;
                so.observer = &obs;
                sim_latency_ns = simulate(hw, t, so).latency_ns;
            };
            ctx.order = std::string("timing-simulation order (") +
                        (policy == SchedulePolicy::list ? "list" : "program_order") + " schedule)";
        } else if (*order == "dataflow") {
            runner = num::run_dataflow;
            ctx.order = "dataflow order (each instruction as soon as its recorded dependencies finish)";
        } else {
            runner = num::run_sequential;
            ctx.order = "sequential program order per core (sendrecv pairs rendezvous)";
        }
        num::ValidateResult r = num::validate_batch_norm_bwd(k.trace, p, in, vo, runner);
        if (out_dir)
            for (const auto& f : num::output_files(p, r)) out_dir->write(f.name, f.write);

        ctx.inputs = in.source;
        if (inputs->empty()) {
            const auto& s = cfg.numerics.inputs;
            auto dist = [](const num::Distribution& d) {
                std::ostringstream o;
                o << (d.kind == num::Distribution::normal ? "normal(" : "uniform(") << d.mean << ", " << d.spread << ")";
                return o.str();
            };
            std::ostringstream o;
            o << in.source << ": x_in " << dist(s.x_in) << ", dy " << dist(s.dy) << ", gamma U[" << s.gamma_lo << ", "
              << s.gamma_hi << "], beta U[" << s.beta_lo << ", " << s.beta_hi << "]; statistics from x_in";
            ctx.inputs = o.str();
        }
        if (sim_latency_ns > 0) {
            std::ostringstream o;
            o << ctx.order << ", simulated latency " << sim_latency_ns / 1000.0 << " us";
            ctx.order = o.str();
        }
        ctx.operand_bits = vo.scale_bias_operand_bits;
        ctx.memory_bytes_estimate = need;
        auto report = validate_report_json(cfg, r, ctx);
        const Provenance prov = provenance_of(cfg);
        report["provenance"] = prov.json();
        if (opts->json) {
            std::cout << report.dump(2) << "\n";
        } else {
            print_validate_report(report, std::cout);
            std::cout << prov.line() << "\n";
        }
        std::cout.flush();
        if (!r.pass) std::exit(1);
    });
}

}  // namespace bnsim
