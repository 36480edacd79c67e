#pragma once
// A sweep's output folder: sweep.json (what the sweep is: base config, kernel decisions,
// columns, every point), results.jsonl and results.csv. Rows are appended as points finish,
// each with one write of a whole line, so an interrupt leaves only whole rows (a torn last line,
// possible only if the machine itself stops, is dropped on --resume). When the sweep completes,
// both files are rewritten sorted by point id, so equal result sets give equal files.
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/sweep/results_table.h"
#include "sim/sweep/sweep_record.h"
#include "sim/sweep/sweep_spec.h"

namespace bnsim {

// sweep.json's content. `shard` is "all" or "i/N".
nlohmann::ordered_json sweep_meta(const SweepSpec& spec, const SweepPlan& plan, const SweepKernel& kernel,
                                  const std::string& shard);
// Throws ConfigError unless sweep.json contents a (from a_dir) and b (from b_dir) were written by
// the same bnsim build: resumed or merged results must come from one simulator.
void check_same_build(const nlohmann::ordered_json& a, const std::string& a_dir, const nlohmann::ordered_json& b,
                      const std::string& b_dir);
SweepKernel kernel_of_meta(const nlohmann::ordered_json& meta);
// Reads DIR/sweep.json and DIR/results.jsonl (a torn last line is ignored); throws ConfigError.
nlohmann::ordered_json read_meta(const std::string& dir);
Records read_records(const std::string& dir);
// Writes sweep.json, results.jsonl and results.csv (sorted by id), each atomically.
void write_results(const std::string& dir, const nlohmann::ordered_json& meta, const Records& records);

class ResultsDir {
public:
    // Creates DIR, or with resume checks that it holds this sweep (same points, same shard) and
    // loads its records. Without resume, a DIR that already holds results is refused. Throws
    // ConfigError (bad usage) naming DIR.
    ResultsDir(std::string dir, nlohmann::ordered_json meta, bool resume);
    ~ResultsDir();
    ResultsDir(const ResultsDir&) = delete;
    ResultsDir& operator=(const ResultsDir&) = delete;

    const Records& records() const { return records_; }
    const nlohmann::ordered_json& meta() const { return meta_; }
    void append(const SweepRecord& record);
    // The same with the record's JSONL line already made (to_json(record).dump(), as a child
    // wrote it).
    void append(const SweepRecord& record, std::string line);
    void finalize();  // the sorted rewrite

private:
    std::string dir_;
    nlohmann::ordered_json meta_;
    Records records_;
    // Each record's JSONL line (without its newline), made once when it is appended or loaded:
    // the sorted rewrite joins them instead of turning every record into JSON again.
    std::map<std::string, std::string> lines_;
    CsvLayout layout_;
    bool header_written_ = false;
    int jsonl_fd_ = -1, csv_fd_ = -1, lock_fd_ = -1;
    void open_streams();
    void rewrite_csv();
};

}  // namespace bnsim
