#pragma once
// What a kernel provides so that `bnsim validate` can run it on real data: its keys of the
// `numerics:` section, its inputs, an oracle and reference, the comparison of its outputs, and
// its own section of the report. The generic driver picks the execution order (the runner),
// checks memory up front and prints the report; everything that knows the kernel's tensors
// lives with the kernel.
#include <any>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernels/kernel_target.h"
#include "numerics/execution_order.h"
#include "numerics/npy.h"
#include "numerics/validation.h"

namespace bnsim {

class ConfigNode;

// The generic settings of `numerics:` every kernel's validation honours.
struct NumericsSettings {
    int scale_bias_operand_bits = 18;  // the hardware's per-partition operand path (or a what-if)
    double tolerance_scale = 1.0;      // multiplies every derived tolerance
};

// Receives a set of .npy files (validate --save-inputs, --outputs) and writes them while the data
// they refer to lives; the driver decides where and how they are written.
using NpyFileSink = std::function<void(const std::vector<num::NpyFile>&)>;

struct ValidateRequest {
    const Trace* trace = nullptr;  // the kernel's trace for these params
    const std::any* params = nullptr;
    KernelTarget target;
    num::Runner run;
    NumericsSettings settings;
    std::string inputs_dir;       // read the inputs from .npy files here (empty: generate them)
    NpyFileSink save_inputs;      // given the inputs used (empty: not asked for)
    NpyFileSink write_outputs;    // given the kernel's outputs (empty: not asked for)
    bool streamed = false;        // hold the tensors only while needed (streamed_bytes_needed);
                                  // `run` then replays the order the estimate walked
};

// A kernel's own part of the validate report: JSON keys placed after "lnc" (`header`) and after
// "outputs" (`details`), and the text lines that go with them.
struct KernelValidation {
    num::ValidationResult result;
    std::string inputs;                    // where the inputs came from, in words
    nlohmann::ordered_json header = nlohmann::ordered_json::object();
    nlohmann::ordered_json details = nlohmann::ordered_json::object();
    std::string title;                     // appended to "bnsim validate: KERNEL"
    std::string header_text;               // lines after the execution line
    std::string details_text;              // lines after the error table
};

struct KernelNumerics {
    // Reads the kernel's keys of `numerics:` (section and its precision/tolerances subsections,
    // nullptr when absent) into its params; run for every command, so a typo is always an error.
    std::function<void(ConfigNode* numerics, ConfigNode* precision, ConfigNode* tolerances, std::any& params)>
        parse;
    // Bytes a validation of this trace holds at its peak (refused up front when over the memory
    // limit; the trace says which HBM tensors and SBUF images the execution allocates).
    std::function<uint64_t(const std::any& params, const Trace& trace, const KernelTarget& target)> bytes_needed;
    // Inputs, execution through the runner, oracle and comparison. Throws KernelError (or
    // num::NpyError) for a problem with the user's input files.
    std::function<KernelValidation(const ValidateRequest& req)> validate;
    // Optional: a streamed validation for shapes whose tensors do not fit whole (HBM paged,
    // numerics/hbm_pages.h; outputs checked part by part). The bytes it holds at its peak when
    // the run reports `order`; empty when the kernel cannot stream.
    std::function<uint64_t(const std::any& params, const Trace& trace, const KernelTarget& target,
                           const num::ExecutionOrder& order)>
        streamed_bytes_needed;
};

}  // namespace bnsim
