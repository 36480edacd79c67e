#include "sim/sweep/results_dir.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/output/output_file.h"
#include "configfile/config_error.h"
#include "configfile/input_file.h"
#include "configfile/json_text.h"
#include "sim/report/provenance.h"

namespace bnsim {

using json = nlohmann::ordered_json;
namespace fs = std::filesystem;

namespace {

std::string file_hash(const std::string& path) {
    return point_id({{"content", read_input_file(path, "a YAML run config", kMaxConfigBytes)}});
}

void write_all(int fd, const std::string& s, const std::string& path) {
    size_t done = 0;
    while (done < s.size()) {
        const ssize_t n = write(fd, s.data() + done, s.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw std::runtime_error(path + ": write failed: " + std::strerror(errno));
        done += size_t(n);
    }
}

CsvLayout layout_of(const json& meta, const Records& records) {
    CsvLayout l;
    for (const auto& c : meta["columns"]) l.columns.push_back(c.get<std::string>());
    for (const auto& c : meta["kernel"]["summary_fields"]) l.summary_fields.push_back(c.get<std::string>());
    for (const auto& [id, r] : records)
        if (r.ok()) {
            l.phases = phase_names(*r.run);
            break;
        }
    return l;
}

std::string csv_text(const CsvLayout& l, const Records& records) {
    std::string s = csv_header(l);
    for (const auto& [id, r] : records) s += csv_row(l, r);
    return s;
}

std::string jsonl_text(const Records& records) {
    std::string s;
    for (const auto& [id, r] : records) s += to_json(r).dump() + "\n";
    return s;
}

// The same from each record's line, in the records' (id) order.
std::string jsonl_text(const std::map<std::string, std::string>& lines) {
    std::string s;
    for (const auto& [id, line] : lines) s += line + "\n";
    return s;
}

}  // namespace

json sweep_meta(const SweepSpec& spec, const SweepPlan& plan, const SweepKernel& kernel, const std::string& shard) {
    json m;
    m["sweep"] = spec.file;
    m["base"] = plan.base;
    m["base_hash"] = file_hash(plan.base);
    json k;
    k["name"] = kernel.name;
    k["decision_axes"] = json::array();
    for (const auto& a : kernel.decision_axes) k["decision_axes"].push_back({{"key", a.key}, {"kind", a.kind}});
    k["auto_overrides"] = json::object();
    for (const auto& [key, v] : kernel.auto_overrides) k["auto_overrides"][key] = v;
    k["summary_fields"] = kernel.summary_fields;
    m["kernel"] = k;
    m["columns"] = plan.columns;
    m["shard"] = shard;
    json pts = json::array();
    std::string all_ids;
    for (const auto& p : plan.points) {
        json pj;
        pj["id"] = p.id;
        pj["auto"] = p.is_auto;
        pj["params"] = json::object();
        for (const auto& [key, v] : p.params) pj["params"][key] = v;
        pts.push_back(pj);
        all_ids += p.id + ";";
    }
    // Identifies the sweep (its points and base config), whichever slice of it a folder holds.
    m["sweep_id"] = point_id({{"points", all_ids}, {"base", m["base_hash"].get<std::string>()}});
    m["points"] = pts;
    // The build that ran the sweep; its config hash is over the sweep's identity (points and base).
    m["provenance"] = provenance_of_text(m["sweep_id"].get<std::string>()).json();
    return m;
}

void check_same_build(const json& a, const std::string& a_dir, const json& b, const std::string& b_dir) {
    const auto version = [](const json& m) {
        return m.contains("provenance") ? m["provenance"].value("bnsim_version", std::string("unknown"))
                                        : std::string("an older bnsim (no provenance)");
    };
    if (version(a) != version(b))
        throw ConfigError(b_dir + ": was run by bnsim " + version(b) + ", " + a_dir + " by bnsim " + version(a) +
                          "; results of different builds do not combine (rerun it with one build)");
}

SweepKernel kernel_of_meta(const json& meta) {
    SweepKernel k;
    const json& j = meta["kernel"];
    k.name = j["name"].get<std::string>();
    for (const auto& a : j["decision_axes"]) k.decision_axes.push_back({a["key"].get<std::string>(), a["kind"].get<std::string>()});
    for (const auto& [key, v] : j["auto_overrides"].items()) k.auto_overrides.emplace_back(key, v.get<std::string>());
    for (const auto& f : j["summary_fields"]) k.summary_fields.push_back(f.get<std::string>());
    return k;
}

namespace {

// Checks of what a folder's files hold before anything reads them by key: a field missing or of
// the wrong type is a located error, not the JSON library's type_error.
struct Shape {
    std::string where;  // "FILE:LINE" or "FILE"
    [[noreturn]] void fail(const std::string& key, const std::string& expected) const {
        throw ConfigError(where + ": " + (key.empty() ? "" : key + ": ") + "expected " + expected +
                          "; not a bnsim sweep record (was the folder edited?)");
    }
    const json& field(const json& o, const std::string& key, const std::string& path) const {
        if (!o.is_object() || !o.contains(key)) fail(path, "a field '" + key + "'");
        return o[key];
    }
    void string(const json& o, const std::string& key, const std::string& path) const {
        if (!field(o, key, path).is_string()) fail(path + key, "a string");
    }
    void number(const json& o, const std::string& key, const std::string& path) const {
        if (!field(o, key, path).is_number()) fail(path + key, "a number");
    }
    void strings(const json& v, const std::string& path) const {  // an array of strings
        if (!v.is_array()) fail(path, "a list of strings");
        for (const auto& s : v)
            if (!s.is_string()) fail(path, "a list of strings");
    }
    void string_map(const json& v, const std::string& path) const {  // an object of strings
        if (!v.is_object()) fail(path, "an object");
        for (const auto& [key, s] : v.items())
            if (!s.is_string()) fail(path + "." + key, "a string");
    }
};

void check_meta(const json& m, const Shape& s) {
    if (!m.is_object()) s.fail("sweep.json", "an object");
    s.string(m, "sweep_id", "");
    s.string(m, "shard", "");
    s.strings(s.field(m, "columns", ""), "columns");
    const json& k = s.field(m, "kernel", "");
    s.string(k, "name", "kernel.");
    const json& axes = s.field(k, "decision_axes", "kernel.");
    if (!axes.is_array()) s.fail("kernel.decision_axes", "a list");
    for (const auto& a : axes) {
        s.string(a, "key", "kernel.decision_axes[].");
        s.string(a, "kind", "kernel.decision_axes[].");
    }
    s.string_map(s.field(k, "auto_overrides", "kernel."), "kernel.auto_overrides");
    s.strings(s.field(k, "summary_fields", "kernel."), "kernel.summary_fields");
    const json& pts = s.field(m, "points", "");
    if (!pts.is_array()) s.fail("points", "a list");
    for (const auto& p : pts) {
        s.string(p, "id", "points[].");
        s.string_map(s.field(p, "params", "points[]."), "points[].params");
    }
    if (m.contains("provenance") && !m["provenance"].is_object()) s.fail("provenance", "an object");
}

}  // namespace

json read_meta(const std::string& dir) {
    const std::string path = (fs::path(dir) / "sweep.json").string();
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) throw ConfigError(dir + ": not a sweep output folder (no sweep.json)");
    json m = parse_json_text(read_input_file(path, "a bnsim sweep.json", kMaxProfileBytes), path, "a bnsim sweep.json");
    check_meta(m, Shape{path});
    return m;
}

Records read_records(const std::string& dir) {
    Records out;
    const std::string path = (fs::path(dir) / "results.jsonl").string();
    std::error_code ec;
    if (!fs::exists(path, ec)) return out;
    const std::string text = read_input_file(path, "a bnsim results.jsonl", kMaxRecordsBytes);
    size_t pos = 0, line_no = 0;
    while (pos < text.size()) {
        const size_t nl = text.find('\n', pos);
        if (nl == std::string::npos) break;  // a torn last line: its point runs again
        ++line_no;
        const std::string where = path + ":" + std::to_string(line_no);
        SweepRecord r = sweep_record_from_json(
            parse_json_text(text.substr(pos, nl - pos), where, "a result record (one JSON object per line)"), where);
        const std::string id = r.id;
        out[id] = std::move(r);
        pos = nl + 1;
    }
    return out;
}

namespace {

void write_rows(const std::string& dir, const json& meta, const Records& records, const std::string& jsonl) {
    OutputDir("--out", dir).write("results.jsonl", [&](std::ostream& o) { o << jsonl; });
    const CsvLayout l = layout_of(meta, records);
    OutputDir("--out", dir).write("results.csv", [&](std::ostream& o) { o << csv_text(l, records); });
}

}  // namespace

void write_results(const std::string& dir, const json& meta, const Records& records) {
    const OutputDir out("--out", dir);  // refuses an unusable folder with the option named
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw UsageError("--out " + dir + ": cannot create the folder (" + ec.message() + ")");
    out.write("sweep.json", [&](std::ostream& o) { o << meta.dump(2) << "\n"; });
    write_rows(dir, meta, records, jsonl_text(records));
}

ResultsDir::ResultsDir(std::string dir, json meta, bool resume) : dir_(std::move(dir)), meta_(std::move(meta)) {
    std::error_code ec;
    if (fs::exists(dir_, ec) && !fs::is_directory(dir_, ec)) throw ConfigError(dir_ + ": exists and is not a folder");
    fs::create_directories(dir_, ec);
    if (ec) throw ConfigError(dir_ + ": cannot create the output folder (" + ec.message() + ")");
    const std::string lock = (fs::path(dir_) / ".lock").string();
    lock_fd_ = open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lock_fd_ < 0)
        throw ConfigError(dir_ + ": cannot write in the output folder (" + std::strerror(errno) + ")");
    if (flock(lock_fd_, LOCK_EX | LOCK_NB) != 0)
        throw ConfigError(dir_ + ": in use by another bnsim sweep or merge (cannot lock " + lock + ")");
    const bool has_meta = fs::exists(fs::path(dir_) / "sweep.json", ec);
    const bool has_rows = fs::exists(fs::path(dir_) / "results.jsonl", ec) &&
                          fs::file_size(fs::path(dir_) / "results.jsonl", ec) > 0;
    if (resume && has_meta) {
        const json old = read_meta(dir_);
        if (old["sweep_id"] != meta_["sweep_id"])
            throw ConfigError(dir_ + ": holds a different sweep (other points or base config); cannot --resume it");
        check_same_build(meta_, "this bnsim", old, dir_);
        if (old["shard"] != meta_["shard"])
            throw ConfigError(dir_ + ": holds shard " + old["shard"].get<std::string>() + ", not " +
                              meta_["shard"].get<std::string>());
        records_ = read_records(dir_);
    } else if (has_rows || has_meta) {
        if (!resume)
            throw ConfigError(dir_ + ": already holds sweep results; pass --resume to continue them or choose another --out");
    }
    // Keep only records of this sweep's points (a resumed folder holds nothing else).
    OutputDir("--out", dir_).write("sweep.json", [&](std::ostream& o) { o << meta_.dump(2) << "\n"; });
    // Rewrite both files from the records, dropping a torn line, then stream onto them.
    for (const auto& [id, r] : records_) lines_[id] = to_json(r).dump();
    OutputDir("--out", dir_).write("results.jsonl", [&](std::ostream& o) { o << jsonl_text(lines_); });
    layout_ = layout_of(meta_, records_);
    header_written_ = !layout_.phases.empty();
    rewrite_csv();
    open_streams();
}

ResultsDir::~ResultsDir() {
    for (int fd : {jsonl_fd_, csv_fd_, lock_fd_})
        if (fd >= 0) close(fd);
}

void ResultsDir::open_streams() {
    for (auto [fd, name] : {std::pair{&jsonl_fd_, "results.jsonl"}, {&csv_fd_, "results.csv"}}) {
        if (*fd >= 0) close(*fd);
        const std::string path = (fs::path(dir_) / name).string();
        *fd = open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
        if (*fd < 0) throw std::runtime_error(path + ": cannot open for appending: " + std::strerror(errno));
    }
}

// The CSV's header waits for the first successful point (its phases name columns); until then
// the file holds the header without phase columns and the rows so far.
void ResultsDir::rewrite_csv() {
    OutputDir("--out", dir_).write("results.csv", [&](std::ostream& o) { o << csv_text(layout_, records_); });
}

void ResultsDir::append(const SweepRecord& record) { append(record, to_json(record).dump()); }

void ResultsDir::append(const SweepRecord& record, std::string line) {
    records_[record.id] = record;
    write_all(jsonl_fd_, line + "\n", dir_ + "/results.jsonl");
    lines_[record.id] = std::move(line);
    if (!header_written_ && record.ok()) {
        layout_.phases = phase_names(*record.run);
        header_written_ = true;
        rewrite_csv();
        open_streams();
        return;
    }
    write_all(csv_fd_, csv_row(layout_, record), dir_ + "/results.csv");
}

void ResultsDir::finalize() {
    write_rows(dir_, meta_, records_, jsonl_text(lines_));  // sweep.json already holds meta_ (written when opened)
    open_streams();
}

}  // namespace bnsim
