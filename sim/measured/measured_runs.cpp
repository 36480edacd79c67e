#include "sim/measured/measured_runs.h"

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "sim/calibration/measurements.h"
#include "sim/measured/csv_table.h"
#include "sim/measured/import_error.h"

namespace bnsim {

namespace fs = std::filesystem;

namespace {

// Compiled on first use, not at start-up: every bnsim command (a run included) paid 1.5M
// instructions for them before main.
const std::regex& dotted_key() {
    static const std::regex re(R"([A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*)");
    return re;
}
const std::regex& percentile_column() {
    static const std::regex re(R"(p([0-9]+(\.[0-9]+)?)_us)");
    return re;
}

std::string read_text(const std::string& path) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) import_fail(path, 0, "", "is a directory, expected a measured-runs file");
    std::ifstream f(path, std::ios::binary);
    if (!f) import_fail(path, 0, "", "cannot open file");
    std::ostringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

std::string resolve_relative(const std::string& file, const std::string& p) {
    if (p.empty() || fs::path(p).is_absolute()) return p;
    return (fs::path(file).parent_path() / p).lexically_normal().string();
}

std::string trim(const std::string& s) {
    size_t b = 0, e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
    return s.substr(b, e - b);
}

double to_us(double v, const std::string& unit, const std::string& file, int line, const std::string& field) {
    if (unit == "us") return v;
    if (unit == "ms") return v * 1e3;
    if (unit == "ns") return v * 1e-3;
    if (unit == "s") return v * 1e6;
    import_fail(file, line, field, "expected a unit of ns, us, ms or s after the value, got '" + unit + "'");
}

}  // namespace

bool metric_is_ns(const std::string& metric) {
    return metric.size() > 3 && metric.compare(metric.size() - 3, 3, "_ns") == 0;
}

std::string point_label(const MeasuredPoint& p) {
    if (!p.id.empty()) return p.id;
    std::string s;
    for (const auto& [k, v] : p.sets) s += (s.empty() ? "" : " ") + k + "=" + v;
    return s.empty() ? "(base config)" : s;
}

MeasuredSet read_runs_csv(const std::string& path) {
    const CsvTable t = read_csv(path);
    MeasuredSet set;
    set.file = path;
    set.format = "runs_csv";
    const auto lat = t.column("latency_us");
    if (!lat) import_fail(path, 1, "latency_us", "missing column (a measured-runs CSV needs latency_us)");
    for (const auto& h : t.header) {
        if (h == "latency_us" || h == "id" || h == "config" || h == "source" || std::regex_match(h, percentile_column()))
            continue;
        if (!std::regex_match(h, dotted_key()))
            import_fail(path, 1, h, "expected a run-config dotted key (e.g. shape.C), latency_us, p<N>_us, id, config or source");
    }
    for (size_t r = 0; r < t.rows.size(); ++r) {
        const auto& row = t.rows[r];
        const int line = t.lines[r];
        MeasuredPoint p;
        p.line = line;
        for (size_t c = 0; c < t.header.size(); ++c) {
            const std::string& h = t.header[c];
            const std::string v = trim(row[c]);
            std::smatch m;
            if (h == "latency_us") {
                p.measured = parse_number(v, path, line, h) * 1e3;
                if (p.measured <= 0) import_fail(path, line, h, "expected a positive latency, got '" + v + "'");
            } else if (std::regex_match(h, m, percentile_column())) {
                if (!v.empty()) p.percentiles_us["p" + m[1].str()] = parse_number(v, path, line, h);
            } else if (h == "id") {
                p.id = v;
            } else if (h == "config") {
                p.config = resolve_relative(path, v);
            } else if (h == "source") {
                p.source = v;
            } else if (!v.empty()) {
                p.sets.emplace_back(h, v);
            }
        }
        if (p.id.empty()) p.id = "line " + std::to_string(line);
        set.points.push_back(std::move(p));
    }
    if (set.points.empty()) import_fail(path, 0, "", "no measured rows after the header");
    return set;
}

// The accepted text form (README, "Measured data"):
//   # comment
//   run: key=value key=value        one block per measured run; keys are run-config dotted keys
//   config: PATH                    optional: the run config (relative to the file)
//   id: NAME                        optional
//   p50: 186.0 us                   percentiles, value and unit (ns, us, ms, s); p50 is required
MeasuredSet read_latency_table(const std::string& path) {
    std::istringstream in(read_text(path));
    MeasuredSet set;
    set.file = path;
    set.format = "latency_table";
    std::optional<MeasuredPoint> cur;
    auto close = [&]() {
        if (!cur) return;
        auto it = cur->percentiles_us.find("p50");
        if (it == cur->percentiles_us.end())
            import_fail(path, cur->line, "p50", "missing: every run: block needs a p50 line");
        cur->measured = it->second * 1e3;
        if (cur->id.empty()) cur->id = "line " + std::to_string(cur->line);
        set.points.push_back(std::move(*cur));
        cur.reset();
    };
    std::string raw;
    for (int line = 1; std::getline(in, raw); ++line) {
        const std::string s = trim(raw);
        if (s.empty() || s[0] == '#') continue;
        const auto colon = s.find(':');
        if (colon == std::string::npos)
            import_fail(path, line, "", "expected 'run: ...', 'config: ...', 'id: ...' or 'pNN: VALUE UNIT', got '" + s + "'");
        const std::string key = trim(s.substr(0, colon)), rest = trim(s.substr(colon + 1));
        if (key == "run") {
            close();
            cur = MeasuredPoint{};
            cur->line = line;
            std::istringstream kv(rest);
            for (std::string pair; kv >> pair;) {
                const auto eq = pair.find('=');
                const std::string k = eq == std::string::npos ? pair : pair.substr(0, eq);
                if (eq == std::string::npos || eq + 1 == pair.size() || !std::regex_match(k, dotted_key()))
                    import_fail(path, line, k, "expected dotted.key=value after 'run:', got '" + pair + "'");
                cur->sets.emplace_back(k, pair.substr(eq + 1));
            }
            continue;
        }
        if (!cur) import_fail(path, line, key, "appears before the first 'run:' line");
        if (key == "config") {
            cur->config = resolve_relative(path, rest);
        } else if (key == "id") {
            cur->id = rest;
        } else if (std::regex_match(key, std::regex(R"(p[0-9]+(\.[0-9]+)?)"))) {
            std::istringstream vu(rest);
            std::string v, unit, extra;
            vu >> v >> unit >> extra;
            if (unit.empty()) import_fail(path, line, key, "expected 'VALUE UNIT' (e.g. 186.0 us), got '" + rest + "'");
            if (!extra.empty()) import_fail(path, line, key, "unexpected text after the unit: '" + extra + "'");
            const double us = to_us(parse_number(v, path, line, key), unit, path, line, key);
            if (us <= 0) import_fail(path, line, key, "expected a positive latency, got '" + v + "'");
            if (!cur->percentiles_us.emplace(key, us).second) import_fail(path, line, key, "given twice in one run");
        } else {
            import_fail(path, line, key, "unknown line: expected run, config, id or a percentile pNN");
        }
    }
    close();
    if (set.points.empty()) import_fail(path, 0, "", "no 'run:' block");
    return set;
}

static MeasuredSet read_calibration(const std::string& path) {
    const MeasurementSet ms = load_measurements(path);
    MeasuredSet set;
    set.file = path;
    set.format = "calibration";
    for (const auto& m : ms.rows) {
        MeasuredPoint p;
        p.id = m.id;
        p.config = m.config;
        p.baseline = m.baseline;
        p.sets = parse_overrides(m.sets);  // the row's own `set:` keys (one config, several widths)
        p.metric = m.metric;
        p.parameter = m.parameter;
        p.measured = m.measured;
        p.source = m.source;
        set.points.push_back(std::move(p));
    }
    return set;
}

MeasuredSet read_measured(const std::string& path) {
    const std::string ext = fs::path(path).extension().string();
    if (ext == ".yaml" || ext == ".yml") return read_calibration(path);
    const std::string text = read_text(path);
    std::istringstream in(text);
    for (std::string raw; std::getline(in, raw);) {
        const std::string s = trim(raw);
        if (s.empty() || s[0] == '#') continue;
        if (s.rfind("run:", 0) == 0) return read_latency_table(path);
        break;
    }
    return read_runs_csv(path);
}

}  // namespace bnsim
