#pragma once
// Reading a file bnsim was given, without trusting it. Every reader of user files (run configs,
// presets, sweep files, measured data, profiles, a sweep folder's records) comes through here:
//  - only a regular file is opened, without blocking (a FIFO, a device or a directory is refused
//    at once instead of hanging or reading forever);
//  - a file over its kind's size limit is refused before any of it is read (and a file that grows
//    while being read stops at the limit);
//  - a UTF-8 byte-order mark, as spreadsheets write it, is dropped.
// Errors are ConfigError (exit 2): "PATH: is a FIFO; expected a sweep file".
#include <cstdint>
#include <string>

namespace bnsim {

// Size limits per kind of file, each far above what a real one needs and far below what would
// take the machine's memory or minutes to parse.
constexpr uint64_t kMiB = uint64_t(1) << 20;
constexpr uint64_t kMaxConfigBytes = 1 * kMiB;     // run configs, presets, sweep files (KBs in practice)
constexpr uint64_t kMaxMeasuredBytes = 16 * kMiB;  // measured-runs CSV, latency tables (~100k rows)
constexpr uint64_t kMaxProfileBytes = 256 * kMiB;  // one profiler table or JSON capture
constexpr uint64_t kMaxRecordsBytes = 1024 * kMiB; // a sweep folder's results.jsonl (20k points of ~10 KB, with room)

// The file's whole text (BOM dropped). `what` names what the file should be ("a sweep file").
std::string read_input_file(const std::string& path, const std::string& what, uint64_t max_bytes);

// Whether `path` names a regular file (no blocking, no exception); for readers that probe.
bool is_regular_input(const std::string& path);

// Text from a file, fit for a one-line message: control bytes escaped (\n, \xNN), cut to about
// max characters with the full length said ("aaaa... (50000 characters)").
std::string excerpt(const std::string& s, size_t max = 60);

// "1.5 MiB", "800 B": a byte count for messages.
std::string byte_text(uint64_t bytes);

}  // namespace bnsim
