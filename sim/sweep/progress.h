#pragma once
// Sweep progress: on a terminal one live line (points done/total, failures, rate, ETA);
// otherwise one plain log line per finished point. Wall-clock figures appear here only, never
// in the result files.
#include <chrono>
#include <cstddef>
#include <iosfwd>
#include <string>

#include "sim/sweep/sweep_record.h"

namespace bnsim {

class Progress {
public:
    Progress(std::ostream& out, bool live, size_t total, size_t already_done);
    void point_done(const SweepRecord& record, const std::string& label);
    void finish();  // ends the live line

private:
    std::ostream& out_;
    bool live_;
    size_t total_, done_, started_with_, failed_ = 0;
    std::chrono::steady_clock::time_point t0_;
};

}  // namespace bnsim
