#pragma once
// Runs the NKI frontend (kernels/nki/frontend, Python standard library only) on a kernel file in
// a child process and reads the trace it writes. The child gets a private temporary folder, no
// standard input, a bounded stderr and a time limit; the folder is removed on every path out.
#include <string>

#include "trace/trace_reader.h"

namespace bnsim::nki {

struct FrontendRequest {
    std::string python = "python3";  // the interpreter, looked up on PATH unless it has a '/'
    std::string request_json;        // what bnsim_nki.run reads (source, function, args, target)
    double timeout_s = 300;
    // The kernel file's size and modification time: with the request, what the trace depends on
    // (the key of kernels/trace_cache.h; a kernel edited during a command is traced again).
    std::string source_stamp;
};

// What the trace of `r` depends on besides the files the kernel was read from: the interpreter,
// the frontend (its files' contents), the kernel file's stamp and the request. The key of
// kernels/trace_cache.h.
std::string frontend_key(const FrontendRequest& r);

// The frontend's trace, dependencies not derived, or KernelError with the frontend's one-line
// message (which names the kernel file and line) or with what went wrong running it. Its info
// lists the files the kernel was read from ("kernel_files": the kernel file and the modules it
// imported from outside the interpreter's own library and packages).
TraceFile run_frontend(const FrontendRequest& r);

// The folder holding the frontend's packages: $BNSIM_NKI_FRONTEND, else the source tree's.
std::string frontend_dir();

}  // namespace bnsim::nki
