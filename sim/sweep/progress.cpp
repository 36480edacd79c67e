#include "sim/sweep/progress.h"

#include <cstdio>
#include <ostream>

namespace bnsim {

Progress::Progress(std::ostream& out, bool live, size_t total, size_t already_done)
    : out_(out), live_(live), total_(total), done_(already_done), started_with_(already_done),
      t0_(std::chrono::steady_clock::now()) {}

void Progress::point_done(const SweepRecord& rec, const std::string& label) {
    ++done_;
    const std::string& status = rec.status;
    if (status != "ok" && status != "infeasible") ++failed_;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    const double rate = elapsed > 0 ? double(done_ - started_with_) / elapsed : 0;
    char line[256];
    if (live_) {
        const double eta = rate > 0 ? double(total_ - done_) / rate : 0;
        std::snprintf(line, sizeof line, "\r%zu/%zu points, %zu failed, %.1f points/s, ETA %.0f s   ", done_, total_,
                      failed_, rate, eta);
        out_ << line << std::flush;
        return;
    }
    std::string what = status;
    if (rec.ok()) {
        std::snprintf(line, sizeof line, "ok %.2f us", rec.latency_ns() / 1000.0);
        what = line;
    } else {
        std::string e = rec.error;
        e = e.substr(0, e.find('\n'));
        if (e.size() > 160) e = e.substr(0, 157) + "...";
        what += ": " + e;
    }
    std::snprintf(line, sizeof line, "[%zu/%zu] ", done_, total_);
    out_ << line << rec.id << " " << label << ": " << what << "\n" << std::flush;
}

void Progress::finish() {
    if (live_) out_ << "\n" << std::flush;
}

}  // namespace bnsim
