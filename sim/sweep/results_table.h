#pragma once
// The result files of a sweep: results.jsonl (one record per point: id, parameters, status,
// error and the full `bnsim run --json`) and results.csv (one row per point: the varied keys,
// status, the kernel's summary of its choices, latency, binding unit, HBM bytes, each phase's
// time and bound, error), both derived from the records so any set of records (a run, a resumed
// run, merged shards) gives the same files.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/output/csv_field.h"
#include "sim/report/run_report.h"
#include "sim/sweep/sweep_kernel.h"

namespace bnsim {

struct CsvLayout {
    std::vector<std::string> columns;        // varied dotted keys
    std::vector<std::string> summary_fields;  // the kernel's
    std::vector<std::string> phases;          // phase names, from the first successful record
};

struct SweepRecord;

// Phase names of a run report ("setup", "phase 1", ...).
std::vector<std::string> phase_names(const RunReport& run);

std::string csv_header(const CsvLayout& l);
std::string csv_row(const CsvLayout& l, const SweepRecord& record);

}  // namespace bnsim
