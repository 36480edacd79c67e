#pragma once
// A profile of one kernel run, in the AWS Neuron profiler's own field names: the summary (one
// `name value` per field: times in seconds, sizes in bytes, percents as fractions), the
// per-instruction table and the DMA packet table, and the metadata (`is_simulation`). Real
// captures and bnsim's own simulated runs (`bnsim run --profile-out DIR`) share this type, so a
// simulated run and a measured one can be joined table by table and instruction by instruction.
//
// Formats read (field names from the Neuron SDK's profiler documentation):
//  - `neuron-profile view --output-format summary-text`: a profile-name line, then `name value`
//    lines;
//  - `neuron-profile view --output-format json` (legacy): {"summary": [ {...} ], "instruction":
//    [ {timestamp, duration, opcode, engine, ...} ]} (timestamp and duration taken as ns);
//  - Neuron Explorer's exported tables, CSV (one table per file, recognised by its columns) or
//    JSON (an array of records, or an object of tables "summary", "instruction", "dma_packet",
//    "metadata"); a directory reads every .csv / .json / .txt table in it.
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace bnsim {

class OutputDir;

struct ProfileInstruction {
    double start_ns = 0, end_ns = 0, duration_ns = 0;  // start_ts, end_ts, duration_ns
    std::string engine;                                 // as the file names it
    std::string opcode;
    std::string nki_source_location;  // bnsim: "kernel_function:step", e.g. "vector_add:load_a"
    bool operator==(const ProfileInstruction& o) const;
};

struct ProfileDmaPacket {
    double start_ns = 0, end_ns = 0;  // start_ts, end_ts
    long long engine_idx = 0;
    std::string queue_name;
    double transfer_bytes = 0;
    // The DMA instruction's source location. bnsim writes it so a phase's window can end at its
    // data's arrival; neuron-profile's DMA rows carry none, and then it stays empty.
    std::string nki_source_location;
    bool operator==(const ProfileDmaPacket& o) const;
};

struct Profile {
    std::string file;
    std::string format;  // summary_text, profile_json, explorer_csv, explorer_json, directory
    std::map<std::string, std::string> summary;   // field -> value as written
    std::map<std::string, std::string> metadata;  // field -> value (is_simulation, ...)
    std::vector<ProfileInstruction> instructions;
    std::vector<ProfileDmaPacket> dma_packets;

    bool is_simulation() const;
    // A numeric summary field (a number the importer checked), if present.
    std::optional<double> number(const std::string& field) const;
};

// Reads a profile from a file or a directory of table files. Throws ImportError naming the file,
// line (CSV, text) or record (JSON), and field.
Profile read_profile(const std::string& path);

// Whether a file looks like a profile (a summary-text capture, a profile JSON or a profiler
// table) rather than a measured-runs file; used by commands that accept either.
bool looks_like_profile(const std::string& path);

// Writes a profile as Neuron Explorer tables: DIR/summary.csv, instruction.csv, dma_packet.csv,
// metadata.csv and the same tables in DIR/profile.json. Numbers are written so they read back
// exactly (shortest round-trip form).
void write_profile_dir(const Profile& p, const OutputDir& dir);
// The names write_profile_dir writes (a folder holding only these is an earlier profile).
const std::vector<std::string>& profile_dir_files();

// The engine a profiler name means, on the profiler's names: tensor, vector, scalar, gpsimd,
// sync (bnsim's pe/dve/act/pool/sync map to these); unknown names come back lower-cased.
std::string engine_key(const std::string& name);

// Summary fields that must be numbers: *_time, *_bytes, *_count, *_percent, *_size and a few more.
bool summary_field_is_numeric(const std::string& field);

// Shortest text that reads back as the same double.
std::string number_text(double v);

}  // namespace bnsim
