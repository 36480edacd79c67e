#include "sim/measured/profile.h"

#include <algorithm>
#include <cmath>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "configfile/input_file.h"
#include "configfile/json_text.h"
#include "sim/output/output_file.h"
#include "sim/measured/csv_table.h"
#include "sim/output/csv_field.h"
#include "sim/measured/import_error.h"

namespace bnsim {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

bool ProfileInstruction::operator==(const ProfileInstruction& o) const {
    return start_ns == o.start_ns && end_ns == o.end_ns && duration_ns == o.duration_ns && engine == o.engine &&
           opcode == o.opcode && nki_source_location == o.nki_source_location;
}

bool ProfileDmaPacket::operator==(const ProfileDmaPacket& o) const {
    return start_ns == o.start_ns && end_ns == o.end_ns && engine_idx == o.engine_idx && queue_name == o.queue_name &&
           transfer_bytes == o.transfer_bytes && nki_source_location == o.nki_source_location;
}

bool Profile::is_simulation() const {
    auto it = metadata.find("is_simulation");
    return it != metadata.end() && (it->second == "true" || it->second == "1" || it->second == "True");
}

std::optional<double> Profile::number(const std::string& field) const {
    auto it = summary.find(field);
    if (it == summary.end()) return std::nullopt;
    try {
        return parse_number(it->second, file, 0, field);
    } catch (const ImportError&) {
        return std::nullopt;
    }
}

std::string number_text(double v) {
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

std::string engine_key(const std::string& name) {
    std::string k;
    for (char c : name)
        if (std::isalnum(static_cast<unsigned char>(c))) k += char(std::tolower(static_cast<unsigned char>(c)));
    static const std::map<std::string, std::string> alias = {
        {"pe", "tensor"},     {"tensor", "tensor"},   {"tensorengine", "tensor"}, {"act", "scalar"},
        {"scalar", "scalar"}, {"activation", "scalar"}, {"scalarengine", "scalar"}, {"dve", "vector"},
        {"vector", "vector"}, {"vectorengine", "vector"}, {"pool", "gpsimd"},     {"gpsimd", "gpsimd"},
        {"gpsimdengine", "gpsimd"}, {"sp", "sync"},   {"sync", "sync"},           {"syncengine", "sync"}};
    auto it = alias.find(k);
    return it == alias.end() ? k : it->second;
}

bool summary_field_is_numeric(const std::string& f) {
    static const char* suffixes[] = {"_time", "_bytes", "_count", "_percent", "_size", "_ns", "_cycles", "_flops",
                                     "_intensity", "_ratio"};
    for (const char* s : suffixes) {
        const size_t n = std::char_traits<char>::length(s);
        if (f.size() > n && f.compare(f.size() - n, n, s) == 0) return true;
    }
    return false;
}

namespace {

std::string read_text(const std::string& path) { return read_import_file(path, "a profile file", kMaxProfileBytes); }

std::string trim(const std::string& s) {
    size_t b = 0, e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
    return s.substr(b, e - b);
}

void check_summary_value(const std::string& file, int line, const std::string& field, const std::string& value,
                         const std::string& where = "") {
    if (!summary_field_is_numeric(field)) return;
    double v = 0;
    try {
        v = parse_number(value, file, line, field);
    } catch (const ImportError&) {
        import_fail(file, line, field, where + "expected a number, got '" + excerpt(value) + "'");
    }
    // Times, sizes and counts are never negative; a kernel takes some time, and less than a day
    // (seconds past that would also overflow once in ns).
    if (v < 0) import_fail(file, line, field, where + "expected a non-negative number, got '" + excerpt(value) + "'");
    const bool seconds = field.size() > 5 && field.compare(field.size() - 5, 5, "_time") == 0;
    if (seconds && v > 86400)
        import_fail(file, line, field, where + "expected seconds of at most 86400, got '" + excerpt(value) + "'");
    if (v > 1e18) import_fail(file, line, field, where + "expected a number of at most 1e18, got '" + excerpt(value) + "'");
    if (field == "total_time" && v <= 0)
        import_fail(file, line, field, where + "expected a positive time in seconds, got '" + excerpt(value) + "'");
}

// ---- summary-text ------------------------------------------------------------------------

Profile parse_summary_text(const std::string& text, const std::string& file) {
    Profile p;
    p.file = file;
    p.format = "summary_text";
    std::istringstream in(text);
    bool named = false;
    std::string raw;
    for (int line = 1; std::getline(in, raw); ++line) {
        const std::string s = trim(raw);
        if (s.empty()) continue;
        size_t sp = 0;
        while (sp < s.size() && !std::isspace(static_cast<unsigned char>(s[sp]))) ++sp;
        const std::string name = s.substr(0, sp), value = trim(s.substr(sp));
        if (value.empty()) {
            if (!named) {  // the profile's name line
                named = true;
                p.metadata["profile_name"] = name;
                continue;
            }
            import_fail(file, line, name, "expected 'name value', got a name without a value");
        }
        named = true;
        if (!p.summary.emplace(name, value).second) import_fail(file, line, name, "given twice");
        check_summary_value(file, line, name, value);
    }
    if (p.summary.empty()) import_fail(file, 0, "", "no 'name value' line: expected neuron-profile summary-text output");
    if (!p.summary.count("total_time"))
        import_fail(file, 0, "total_time", "missing: a profile summary needs total_time (seconds)");
    return p;
}

// ---- tables (shared by CSV and JSON) ------------------------------------------------------

enum class Table { summary, instruction, dma_packet, metadata, opcode_summary, unknown };

Table table_of(const std::set<std::string>& fields) {
    if (fields.count("opcode") && (fields.count("duration_ns") || fields.count("start_ts") || fields.count("duration") ||
                                   fields.count("timestamp")))
        return Table::instruction;
    if (fields.count("transfer_bytes") || (fields.count("queue_name") && fields.count("engine_idx")))
        return Table::dma_packet;
    if (fields.count("instruction_count") && fields.count("opcode")) return Table::opcode_summary;
    if (fields.count("total_time")) return Table::summary;
    if (fields.count("is_simulation")) return Table::metadata;
    return Table::unknown;
}

// A record's fields as text, with how to name a field in an error.
struct Record {
    std::string file;    // JSON: "FILE: instruction[3]"
    int line;            // CSV line, or 0 for JSON
    std::string where;   // unused prefix of messages (kept empty)
    std::map<std::string, std::string> f;

    bool has(const std::string& k) const {
        auto it = f.find(k);
        return it != f.end() && !trim(it->second).empty();
    }
    const std::string& text(const std::string& k) const {
        auto it = f.find(k);
        if (it == f.end()) import_fail(file, line, k, where + "missing");
        return it->second;
    }
    // A table's numbers (timestamps and durations in ns, bytes, indices) stay within 1e18, so
    // every sum and difference of them, in ns or converted, is finite.
    double num(const std::string& k) const {
        const std::string& v = text(k);
        double x = 0;
        try {
            x = parse_number(v, file, line, k);
        } catch (const ImportError&) {
            import_fail(file, line, k, where + "expected a number, got '" + excerpt(v) + "'");
        }
        if (std::fabs(x) > 1e18) import_fail(file, line, k, where + "expected a number within +-1e18, got '" + excerpt(v) + "'");
        return x;
    }
};

ProfileInstruction instruction_from(const Record& r) {
    ProfileInstruction in;
    in.engine = trim(r.text("engine"));
    in.opcode = trim(r.text("opcode"));
    if (in.engine.empty()) import_fail(r.file, r.line, "engine", r.where + "empty");
    if (in.opcode.empty()) import_fail(r.file, r.line, "opcode", r.where + "empty");
    if (r.f.count("start_ts") || !r.f.count("timestamp")) {
        in.start_ns = r.num("start_ts");
        if (r.has("end_ts")) {
            in.end_ns = r.num("end_ts");
            in.duration_ns = r.has("duration_ns") ? r.num("duration_ns") : in.end_ns - in.start_ns;
        } else {
            in.duration_ns = r.num("duration_ns");
            in.end_ns = in.start_ns + in.duration_ns;
        }
    } else {  // legacy neuron-profile JSON
        in.start_ns = r.num("timestamp");
        in.duration_ns = r.num("duration");
        in.end_ns = in.start_ns + in.duration_ns;
    }
    if (in.end_ns < in.start_ns) import_fail(r.file, r.line, "end_ts", r.where + "ends before it starts");
    if (in.duration_ns < 0) import_fail(r.file, r.line, "duration_ns", r.where + "negative duration");
    if (r.f.count("nki_source_location")) in.nki_source_location = r.f.at("nki_source_location");
    return in;
}

ProfileDmaPacket packet_from(const Record& r) {
    ProfileDmaPacket d;
    d.start_ns = r.num("start_ts");
    d.end_ns = r.num("end_ts");
    if (d.end_ns < d.start_ns) import_fail(r.file, r.line, "end_ts", r.where + "ends before it starts");
    const double e = r.num("engine_idx");
    if (e < 0 || e != double((long long)e)) import_fail(r.file, r.line, "engine_idx", r.where + "expected an engine index (0, 1, ...)");
    d.engine_idx = (long long)e;
    d.queue_name = r.has("queue_name") ? r.text("queue_name") : "";
    d.transfer_bytes = r.num("transfer_bytes");
    if (d.transfer_bytes < 0) import_fail(r.file, r.line, "transfer_bytes", r.where + "negative byte count");
    if (r.f.count("nki_source_location")) d.nki_source_location = r.f.at("nki_source_location");
    return d;
}

void add_record(Profile& p, Table t, const Record& r) {
    switch (t) {
        case Table::instruction: p.instructions.push_back(instruction_from(r)); break;
        case Table::dma_packet: p.dma_packets.push_back(packet_from(r)); break;
        case Table::summary:
            for (const auto& [k, v] : r.f) {
                check_summary_value(r.file, r.line, k, v, r.where);
                p.summary[k] = v;
            }
            break;
        case Table::metadata:
            for (const auto& [k, v] : r.f) p.metadata[k] = v;
            break;
        case Table::opcode_summary:
        case Table::unknown: break;
    }
}

void read_csv_table(Profile& p, const std::string& path) {
    const CsvTable t = read_csv(path);
    const std::set<std::string> fields(t.header.begin(), t.header.end());
    const Table kind = table_of(fields);
    if (kind == Table::unknown)
        import_fail(path, 1, "", "not a profiler table: expected the columns of a summary (total_time), instruction "
                                 "(start_ts, end_ts, duration_ns, engine, opcode), DMA packet (start_ts, end_ts, "
                                 "engine_idx, queue_name, transfer_bytes) or metadata (is_simulation) table");
    if (kind == Table::summary && t.rows.size() != 1)
        import_fail(path, 0, "", "a summary table has one row, got " + std::to_string(t.rows.size()));
    for (size_t i = 0; i < t.rows.size(); ++i) {
        Record r{path, t.lines[i], "", {}};
        for (size_t c = 0; c < t.header.size(); ++c) r.f[t.header[c]] = t.rows[i][c];
        add_record(p, kind, r);
    }
}

std::string json_text(const json& v) {
    if (v.is_string()) return v.get<std::string>();
    if (v.is_null()) return "";
    if (v.is_number_float()) return number_text(v.get<double>());
    return v.dump();
}

Record json_record(const std::string& file, const std::string& where, const json& obj) {
    if (!obj.is_object()) import_fail(file + ": " + where, 0, "", "expected a JSON object");
    Record r{file + ": " + where, 0, "", {}};
    for (auto it = obj.begin(); it != obj.end(); ++it) r.f[it.key()] = json_text(it.value());
    return r;
}

std::string table_key(const std::string& k) {
    std::string s;
    for (char c : k)
        if (c != '_') s += char(std::tolower(static_cast<unsigned char>(c)));
    if (!s.empty() && s.back() == 's') s.pop_back();
    return s;
}

void read_json_profile(Profile& p, const std::string& path, const std::string& text) {
    json doc;
    try {
        doc = parse_json_text(text, path, "a profile JSON");
    } catch (const ConfigError& e) {
        throw ImportError(e.what());
    }
    auto add_list = [&](const json& list, Table forced, const std::string& name) {
        const json items = list.is_array() ? list : json::array({list});
        for (size_t i = 0; i < items.size(); ++i) {
            const std::string where = name + "[" + std::to_string(i) + "]";
            Record r = json_record(path, where, items[i]);
            Table t = forced;
            if (t == Table::unknown) {
                std::set<std::string> fields;
                for (const auto& kv : r.f) fields.insert(kv.first);
                t = table_of(fields);
                if (t == Table::unknown) import_fail(path + ": " + where, 0, "", "not a profiler record (no total_time, opcode with times, transfer_bytes or is_simulation)");
            }
            add_record(p, t, r);
        }
    };
    if (doc.is_array()) {
        add_list(doc, Table::unknown, "record");
        return;
    }
    if (!doc.is_object()) import_fail(path, 0, "", "expected a JSON object of profiler tables or an array of records");
    bool any = false;
    for (auto it = doc.begin(); it != doc.end(); ++it) {
        const std::string k = table_key(it.key());
        Table t = Table::unknown;
        if (k == "summary") t = Table::summary;
        else if (k == "instruction") t = Table::instruction;
        else if (k == "dmapacket") t = Table::dma_packet;
        else if (k == "metadata") t = Table::metadata;
        else continue;  // other tables (opcode summary, ...) are not used
        any = true;
        add_list(it.value(), t, it.key());
    }
    if (!any) import_fail(path, 0, "", "no profiler table: expected keys summary, instruction, dma_packet or metadata");
}

bool looks_like_summary_text(const std::string& text) {
    std::istringstream in(text);
    std::string raw;
    while (std::getline(in, raw)) {
        const std::string s = trim(raw);
        if (s.empty()) continue;
        return s.find(',') == std::string::npos && s[0] != '{' && s[0] != '[';
    }
    return false;
}

void read_one(Profile& p, const std::string& path) {
    const std::string text = read_text(path);
    size_t b = 0;
    while (b < text.size() && std::isspace(static_cast<unsigned char>(text[b]))) ++b;
    if (b < text.size() && (text[b] == '{' || text[b] == '[')) {
        read_json_profile(p, path, text);
        if (p.format.empty()) p.format = text.find("\"instruction\"") != std::string::npos && text.find("\"timestamp\"") != std::string::npos ? "profile_json" : "explorer_json";
    } else if (looks_like_summary_text(text)) {
        Profile s = parse_summary_text(text, path);
        for (auto& kv : s.summary) p.summary[kv.first] = kv.second;
        for (auto& kv : s.metadata) p.metadata[kv.first] = kv.second;
        if (p.format.empty()) p.format = "summary_text";
    } else {
        read_csv_table(p, path);
        if (p.format.empty()) p.format = "explorer_csv";
    }
}

}  // namespace

bool looks_like_profile(const std::string& path) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) return true;
    // Only a regular file is probed (a FIFO would block); whatever else it is, its reader says so.
    if (!is_regular_input(path)) return false;
    std::ifstream f(path, std::ios::binary);
    if (!f) return false;
    std::string head(64 * 1024, '\0');  // the first line is enough; never read a whole big file here
    f.read(&head[0], std::streamsize(head.size()));
    head.resize(size_t(f.gcount()));
    if (head.compare(0, 3, "\xEF\xBB\xBF") == 0) head.erase(0, 3);
    std::istringstream in(head);
    std::string first;
    while (std::getline(in, first) && trim(first).empty()) {
    }
    const std::string s = trim(first);
    if (s.empty()) return false;
    if (s[0] == '{' || s[0] == '[') return true;
    if (s.find(',') == std::string::npos) return s.rfind("run:", 0) != 0 && s[0] != '#' && s.find(':') == std::string::npos;
    // CSV: a profiler table if its header has profiler columns
    for (const char* c : {"total_time", "duration_ns", "transfer_bytes", "is_simulation", "start_ts"})
        if (s.find(c) != std::string::npos) return true;
    return false;
}

namespace {

// A profile folder holds a handful of tables; past this many files it is not one.
constexpr size_t kMaxProfileFiles = 64;

std::vector<std::string> table_files(const std::string& dir) {
    std::vector<std::string> csv, json_files;
    try {
        size_t seen = 0;
        for (const auto& e : fs::directory_iterator(dir)) {
            if (++seen > 4 * kMaxProfileFiles)
                import_fail(dir, 0, "", "more than " + std::to_string(4 * kMaxProfileFiles) +
                                            " entries; expected a profile folder of a few tables");
            std::error_code ec;
            if (!e.is_regular_file(ec)) continue;
            const std::string ext = e.path().extension().string();
            if (ext == ".csv" || ext == ".txt") csv.push_back(e.path().string());
            if (ext == ".json") json_files.push_back(e.path().string());
        }
    } catch (const fs::filesystem_error& e) {
        import_fail(dir, 0, "", std::string("cannot list the folder (") + e.code().message() + ")");
    }
    // The JSON holds the same tables as the CSVs bnsim writes; read it only when there are no CSVs.
    std::vector<std::string> files = csv.empty() ? json_files : csv;
    std::sort(files.begin(), files.end());
    if (files.size() > kMaxProfileFiles)
        import_fail(dir, 0, "", std::to_string(files.size()) + " table files; expected a profile folder of at most " +
                                    std::to_string(kMaxProfileFiles));
    return files;
}

}  // namespace

Profile read_profile(const std::string& path) {
    Profile p;
    p.file = path;
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
        p.format = "directory";
        const std::vector<std::string> files = table_files(path);
        if (files.empty()) import_fail(path, 0, "", "directory holds no profile table (.csv, .json or summary .txt)");
        for (const auto& f : files) read_one(p, f);
    } else {
        read_one(p, path);
    }
    if (p.summary.empty() && p.instructions.empty() && p.dma_packets.empty())
        import_fail(path, 0, "", "no summary, instruction or DMA packet data");
    return p;
}

namespace {

json to_json(const Profile& p) {
    json j;
    json md = json::object();
    for (const auto& [k, v] : p.metadata) md[k] = v == "true" ? json(true) : v == "false" ? json(false) : json(v);
    j["metadata"] = json::array({md});
    json s = json::object();
    for (const auto& [k, v] : p.summary) s[k] = v;
    j["summary"] = json::array({s});
    json ins = json::array();
    for (const auto& i : p.instructions)
        ins.push_back({{"start_ts", i.start_ns}, {"end_ts", i.end_ns}, {"duration_ns", i.duration_ns},
                       {"engine", i.engine}, {"opcode", i.opcode}, {"nki_source_location", i.nki_source_location}});
    j["instruction"] = ins;
    json pk = json::array();
    for (const auto& d : p.dma_packets)
        pk.push_back({{"start_ts", d.start_ns}, {"end_ts", d.end_ns}, {"engine_idx", d.engine_idx},
                      {"queue_name", d.queue_name}, {"transfer_bytes", d.transfer_bytes},
                      {"nki_source_location", d.nki_source_location}});
    j["dma_packet"] = pk;
    return j;
}

std::string key_value_csv(const std::map<std::string, std::string>& m) {
    std::string h, v;
    for (const auto& [k, val] : m) {
        h += (h.empty() ? "" : ",") + csv_field(k);
        v += (v.empty() ? "" : ",") + csv_field(val);
    }
    return h + "\n" + v + "\n";
}

}  // namespace

const std::vector<std::string>& profile_dir_files() {
    static const std::vector<std::string> names{"metadata.csv", "summary.csv", "instruction.csv", "dma_packet.csv",
                                                "profile.json"};
    return names;
}

void write_profile_dir(const Profile& p, const OutputDir& dir) {
    dir.write("metadata.csv", [&](std::ostream& o) { o << key_value_csv(p.metadata); });
    dir.write("summary.csv", [&](std::ostream& o) { o << key_value_csv(p.summary); });
    dir.write("instruction.csv", [&](std::ostream& o) {
        o << "start_ts,end_ts,duration_ns,engine,opcode,nki_source_location\n";
        for (const auto& i : p.instructions)
            o << number_text(i.start_ns) << ',' << number_text(i.end_ns) << ',' << number_text(i.duration_ns) << ','
              << csv_field(i.engine) << ',' << csv_field(i.opcode) << ',' << csv_field(i.nki_source_location) << '\n';
    });
    dir.write("dma_packet.csv", [&](std::ostream& o) {
        o << "start_ts,end_ts,engine_idx,queue_name,transfer_bytes,nki_source_location\n";
        for (const auto& x : p.dma_packets)
            o << number_text(x.start_ns) << ',' << number_text(x.end_ns) << ',' << x.engine_idx << ','
              << csv_field(x.queue_name) << ',' << number_text(x.transfer_bytes) << ','
              << csv_field(x.nki_source_location) << '\n';
    });
    dir.write("profile.json", [&](std::ostream& o) { o << to_json(p).dump(1) << "\n"; });
}

}  // namespace bnsim
