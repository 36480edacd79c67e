// bnsim validate: run the kernel's trace on real data with the hardware's numerics, check the
// execution for hazards, and compare its outputs with a float64 reference and an independent
// oracle (the kernel's numerics entry). Exit status: 0 pass, 1 fail, 2 bad config or inputs.
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <sys/stat.h>

#include "sim/config/run_config.h"
#include "kernels/kernel_numerics.h"
#include "numerics/execution_order.h"
#include "numerics/hazard_checker.h"
#include "numerics/runners.h"
#include "sim/commands/command.h"
#include "sim/output/output_file.h"
#include "sim/report/provenance.h"
#include "sim/report/validate_report.h"
#include "sim/config/host_limits.h"
#include "sim/simulate/simulate.h"

namespace bnsim {
namespace {

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

std::string numerics_kernels() {
    std::string s;
    for (const auto& n : kernel_names())
        if (find_kernel(n)->numerics) s += (s.empty() ? "" : ", ") + n;
    return s;
}

// How the validation holds its tensors, decided up front from the estimates and the limit.
struct MemoryPlan {
    bool streamed = false;
    uint64_t bytes = 0;  // the estimated peak of the mode that runs
    num::ExecutionOrder order;  // streamed: the order the run reports, recorded once
};

[[noreturn]] void refuse(const RunConfig& cfg, const std::string& need, uint64_t limit) {
    std::ostringstream m;
    m << cfg.kernel << ": validating needs about " << need << ", but only " << limit << " bytes ("
      << gib(limit) << ") are "
      << (cfg.numerics.memory_limit_bytes ? "allowed by numerics.memory_limit_bytes" : "available")
      << "; validate a smaller shape";
    throw KernelError(m.str());
}

std::string bytes_text(uint64_t b) { return std::to_string(b) + " bytes (" + gib(b) + ")"; }

// Whole tensors when they fit the memory limit (numerics.memory_limit_bytes, else MemAvailable),
// else streamed when the kernel can stream and that fits; refused up front otherwise.
MemoryPlan plan_memory(const RunConfig& cfg, const Trace& trace, const KernelTarget& target, const num::Runner& run) {
    using Streaming = NumericsConfig::Streaming;
    const KernelNumerics& kn = *cfg.entry->numerics;
    const uint64_t whole = kn.bytes_needed(cfg.kernel_params, trace, target);
    const uint64_t limit = cfg.numerics.memory_limit_bytes ? cfg.numerics.memory_limit_bytes : mem_available_bytes();
    const Streaming mode = cfg.numerics.streaming;
    MemoryPlan plan;
    const bool fits = !limit || whole <= limit;
    if (mode == Streaming::never || (mode == Streaming::automatic && fits) ||
        (mode == Streaming::automatic && !kn.streamed_bytes_needed)) {
        if (!fits) refuse(cfg, bytes_text(whole) + " of memory", limit);
        plan.bytes = whole;
        return plan;
    }
    if (!kn.streamed_bytes_needed)
        throw ConfigError(cfg.file + ": numerics.streaming: always, but bnsim validate cannot stream kernel " + cfg.kernel);
    plan.streamed = true;
    plan.order = num::record_order(trace, run);
    plan.bytes = kn.streamed_bytes_needed(cfg.kernel_params, trace, target, plan.order);
    if (limit && plan.bytes > limit)
        refuse(cfg, bytes_text(whole) + " of memory with whole tensors and " + bytes_text(plan.bytes) +
                        " streamed channel tile by channel tile",
               limit);
    return plan;
}

std::string memory_text(const MemoryPlan& plan) {
    return std::string(plan.streamed ? "streamed (HBM tensors paged, outputs checked as each channel tile finishes)"
                                     : "whole tensors") +
           ", estimated peak " + gib(plan.bytes);
}

// The order the instructions run in, and its description.
num::Runner runner_for(const std::string& order, const RunConfig& cfg, double& sim_latency_ns, std::string& text) {
    if (order == "dataflow") {
        text = "dataflow order (each instruction as soon as its recorded dependencies finish)";
        return num::run_dataflow;
    }
    if (order == "sequential") {
        text = "sequential program order per core (sendrecv pairs rendezvous)";
        return num::run_sequential;
    }
    const HwConfig hw = cfg.hw;
    const SchedulePolicy policy = cfg.schedule;
    text = std::string("timing-simulation order (") + (policy == SchedulePolicy::list ? "list" : "program_order") +
           " schedule)";
    return [hw, policy, &sim_latency_ns](const Trace& t, ExecutionObserverIF& obs) {
        SimOptions so;
        so.policy = policy;
        so.observer = &obs;
        sim_latency_ns = simulate(hw, t, so).latency_ns;
    };
}

// A kernel without a numerics model (an NKI kernel, a trace file, a calibration kernel): no data,
// but the execution is checked against the trace's true dependencies, and the races the kernel's
// own source allows (its producer's findings) are reported. Exit 1 when there are any.
void validate_hazards_only(const RunConfig& cfg, const GeneratedKernel& k, const std::string& order, bool as_json) {
    double sim_latency_ns = 0;
    std::string order_text;
    const num::Runner run = runner_for(order, cfg, sim_latency_ns, order_text);
    num::HazardChecker checker(k.trace);
    run(k.trace, checker);
    const std::vector<num::Hazard> hazards = checker.check();
    const bool pass = hazards.empty() && k.source_races.empty();
    const Provenance prov = provenance_of(cfg);
    if (as_json) {
        nlohmann::ordered_json j;
        j["kernel"] = cfg.kernel;
        j["config"] = cfg.file;
        j["mode"] = "hazards";
        j["order"] = order_text;
        if (sim_latency_ns > 0) j["simulated_latency_ns"] = std::round(sim_latency_ns * 1000) / 1000;
        j["edges_checked"] = checker.edges_checked();
        nlohmann::ordered_json hz = nlohmann::ordered_json::array();
        for (const auto& h : hazards) hz.push_back(h.text);
        j["execution_hazards"] = hz;
        j["source_races"] = k.source_races;
        j["pass"] = pass;
        j["provenance"] = prov.json();
        std::cout << j.dump(2) << "\n";
    } else {
        std::cout << "validate    " << cfg.kernel << ": hazards only (the kernel has no numerics model), " << order_text;
        if (sim_latency_ns > 0) std::cout << ", simulated latency " << sim_latency_ns / 1000.0 << " us";
        std::cout << "\nexecution   " << checker.edges_checked() << " dependency edges checked, " << hazards.size()
                  << " hazards\n";
        for (size_t i = 0; i < hazards.size() && i < 20; ++i) std::cout << "  " << hazards[i].text << "\n";
        std::cout << "source      " << k.source_races.size()
                  << " races the kernel's own ordering allows (dependencies between iterations of an affine_range loop)\n";
        for (size_t i = 0; i < k.source_races.size() && i < 20; ++i) std::cout << "  " << k.source_races[i] << "\n";
        if (k.source_races.size() > 20) std::cout << "  ... and " << k.source_races.size() - 20 << " more\n";
        std::cout << "result      " << (pass ? "PASS" : "FAIL") << "\n" << prov.line() << "\n";
    }
    std::cout.flush();
    if (!pass) std::exit(1);
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
        if (!cfg.entry->numerics) {
            if (inputs_opt->count() || outputs_opt->count() || save_inputs_opt->count())
                throw ConfigError(opts->config + ": --inputs, --outputs and --save-inputs need numerics, which kernel " +
                                  cfg.kernel + " has not (bnsim validate checks its hazards only; numerics: " +
                                  numerics_kernels() + ")");
            validate_hazards_only(cfg, cfg.generate(), *order, opts->json);
            return;
        }
        const KernelTarget target = cfg.target();
        // Generating the trace allocates no tensor data; it says which HBM tensors and SBUF images
        // the execution allocates, which the memory check needs.
        GeneratedKernel k = cfg.generate();
        double sim_latency_ns = 0;
        std::string order_text;
        const num::Runner run = runner_for(*order, cfg, sim_latency_ns, order_text);
        const MemoryPlan plan = plan_memory(cfg, k.trace, target, run);

        ValidateRequest req;
        req.trace = &k.trace;
        req.params = &cfg.kernel_params;
        req.target = target;
        req.settings.scale_bias_operand_bits =
            cfg.numerics.scale_bias_operand_bits.value_or(cfg.hw.numerics.scale_bias_operand_bits);
        req.settings.tolerance_scale = cfg.numerics.tolerance_scale;
        req.inputs_dir = *inputs;
        auto sink = [](const std::optional<OutputDir>& dir) -> NpyFileSink {
            if (!dir) return {};
            return [&dir](const std::vector<num::NpyFile>& files) {
                for (const auto& f : files) dir->write(f.name, f.write);
            };
        };
        req.save_inputs = sink(save_dir);
        req.write_outputs = sink(out_dir);
        req.run = plan.streamed ? num::replay(plan.order) : run;
        req.streamed = plan.streamed;
        KernelValidation v = cfg.entry->numerics->validate(req);
        if (sim_latency_ns > 0) {
            std::ostringstream o;
            o << order_text << ", simulated latency " << sim_latency_ns / 1000.0 << " us";
            order_text = o.str();
        }
        const bool pass = v.result.pass;
        ValidateReport report = make_validate_report(cfg, order_text, plan.bytes, std::move(v));
        report.memory = memory_text(plan);
        report.memory_mode = plan.streamed ? "streamed" : "whole";
        const Provenance prov = provenance_of(cfg);
        if (opts->json) {
            nlohmann::ordered_json j = validate_report_json(report);
            j["provenance"] = prov.json();
            std::cout << j.dump(2) << "\n";
        } else {
            print_validate_report(report, std::cout);
            std::cout << prov.line() << "\n";
        }
        std::cout.flush();
        if (!pass) std::exit(1);
    });
}

}  // namespace bnsim
