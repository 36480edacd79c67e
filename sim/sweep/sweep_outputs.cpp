#include "sim/sweep/sweep_outputs.h"

#include <filesystem>

#include "sim/output/output_file.h"
#include "sim/sweep/sweep_report_html.h"
#include "sim/sweep/sweep_summary.h"

namespace bnsim {

SweepSummary write_sweep_answers(const std::string& dir, const nlohmann::ordered_json& meta, const Records& records) {
    const auto summary = sweep_summary(meta, records);
    const std::filesystem::path d(dir);
    OutputDir("--out", dir).write("summary.json", [&](std::ostream& o) { o << to_json(summary).dump(2) << "\n"; });
    OutputDir("--out", dir).write("report.html", [&](std::ostream& o) { write_sweep_report_html(o, meta, records, summary); });
    return summary;
}

}  // namespace bnsim
