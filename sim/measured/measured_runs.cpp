#include "sim/measured/measured_runs.h"

#include <filesystem>
#include <fstream>
#include <algorithm>
#include <cstdlib>
#include <set>
#include <sstream>

#include "configfile/input_file.h"
#include "sim/calibration/measurements.h"
#include "sim/measured/csv_table.h"
#include "sim/measured/import_error.h"

namespace bnsim {

namespace fs = std::filesystem;

namespace {

// Hand-written matchers, not std::regex: its matcher recurses per character, so a long column
// name in an untrusted file overflowed the stack.
bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// [A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*
bool is_dotted_key(const std::string& s) {
    bool start = true;
    for (char c : s) {
        if (start) {
            if (!ident_start(c)) return false;
            start = false;
        } else if (c == '.') {
            start = true;
        } else if (!ident_char(c)) {
            return false;
        }
    }
    return !start;
}

// [0-9]+(\.[0-9]+)?
bool is_decimal(const std::string& s) {
    const size_t dot = s.find('.');
    auto digits = [](const std::string& d) {
        return !d.empty() && std::all_of(d.begin(), d.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    if (dot == std::string::npos) return digits(s);
    return digits(s.substr(0, dot)) && digits(s.substr(dot + 1));
}

// p<N> (latency-table keys) and p<N>_us (CSV columns); the percentile's text, or "".
std::string percentile_of(const std::string& s, const std::string& suffix) {
    if (s.size() <= 1 + suffix.size() || s[0] != 'p' || s.compare(s.size() - suffix.size(), suffix.size(), suffix) != 0)
        return "";
    const std::string n = s.substr(1, s.size() - 1 - suffix.size());
    // A percentile is at most 100 (p99.99 is a percentile, p500 is not).
    if (n.size() > 12 || !is_decimal(n) || std::strtod(n.c_str(), nullptr) > 100) return "";
    return n;
}

// A latency in us, checked: past 1000 s it is not a measurement (and its ns would overflow
// later sums). `shown` is the text the error quotes.
double checked_latency_us(double us, const std::string& shown, const std::string& file, int line, const std::string& field) {
    if (!(us > 0 && us <= 1e9)) import_fail(file, line, field, "expected a latency in (0, 1e9] us, got '" + excerpt(shown) + "'");
    return us;
}

std::string read_text(const std::string& path) { return read_import_file(path, "a measured-runs file", kMaxMeasuredBytes); }

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
    import_fail(file, line, field, "expected a unit of ns, us, ms or s after the value, got '" + excerpt(unit) + "'");
}

}  // namespace

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
        if (h == "latency_us" || h == "id" || h == "config" || h == "source" || !percentile_of(h, "_us").empty())
            continue;
        if (!is_dotted_key(h))
            import_fail(path, 1, h, "expected a run-config dotted key (e.g. shape.C), latency_us, p<N>_us, id, config or source");
    }
    if (t.rows.size() > kMaxMeasuredPoints)
        import_fail(path, 0, "", std::to_string(t.rows.size()) + " measured rows; expected at most " +
                                     std::to_string(kMaxMeasuredPoints) + " (each is a simulation): split the file");
    for (size_t r = 0; r < t.rows.size(); ++r) {
        const auto& row = t.rows[r];
        const int line = t.lines[r];
        MeasuredPoint p;
        p.line = line;
        for (size_t c = 0; c < t.header.size(); ++c) {
            const std::string& h = t.header[c];
            const std::string v = trim(row[c]);
            const std::string pct = percentile_of(h, "_us");
            if (h == "latency_us") {
                p.measured = checked_latency_us(parse_number(v, path, line, h), v, path, line, h) * 1e3;
            } else if (!pct.empty()) {
                if (!v.empty()) p.percentiles_us["p" + pct] = checked_latency_us(parse_number(v, path, line, h), v, path, line, h);
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
    std::set<std::string> seen_in_block;  // config and id, each once per run: block
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
            import_fail(path, line, "", "expected 'run: ...', 'config: ...', 'id: ...' or 'pNN: VALUE UNIT', got '" + excerpt(s) + "'");
        const std::string key = trim(s.substr(0, colon)), rest = trim(s.substr(colon + 1));
        if (key == "run") {
            close();
            seen_in_block.clear();
            if (set.points.size() >= kMaxMeasuredPoints)
                import_fail(path, line, "", "more than " + std::to_string(kMaxMeasuredPoints) +
                                                " run: blocks; expected at most that many (each is a simulation): split the file");
            cur = MeasuredPoint{};
            cur->line = line;
            std::istringstream kv(rest);
            for (std::string pair; kv >> pair;) {
                const auto eq = pair.find('=');
                const std::string k = eq == std::string::npos ? pair : pair.substr(0, eq);
                if (eq == std::string::npos || eq + 1 == pair.size() || !is_dotted_key(k))
                    import_fail(path, line, k, "expected dotted.key=value after 'run:', got '" + excerpt(pair) + "'");
                cur->sets.emplace_back(k, pair.substr(eq + 1));
            }
            continue;
        }
        if (!cur) import_fail(path, line, key, "appears before the first 'run:' line");
        if (key == "config" || key == "id") {
            if (!seen_in_block.insert(key).second) import_fail(path, line, key, "given twice in one run");
        }
        if (key == "config") {
            cur->config = resolve_relative(path, rest);
        } else if (key == "id") {
            cur->id = rest;
        } else if (!percentile_of(key, "").empty()) {
            std::istringstream vu(rest);
            std::string v, unit, extra;
            vu >> v >> unit >> extra;
            if (unit.empty()) import_fail(path, line, key, "expected 'VALUE UNIT' (e.g. 186.0 us), got '" + excerpt(rest) + "'");
            if (!extra.empty()) import_fail(path, line, key, "unexpected text after the unit: '" + excerpt(extra) + "'");
            const double us = checked_latency_us(to_us(parse_number(v, path, line, key), unit, path, line, key), rest, path,
                                                 line, key);
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
        if (m.scope == Measurement::Scope::whole_kernel) p.kernel = m.id.substr(0, m.id.find('.'));
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
